// Package cii reads and writes the UN/CEFACT Cross Industry Invoice (D16B) as profiled by
// EN 16931 (CEN/TS 16931-3-3), ZUGFeRD 2.x / Factur-X 1.0 (MINIMUM to EXTENDED) and
// XRechnung CII. Writing follows the schema's element order and, for a ZUGFeRD profile, keeps
// only what that profile's schema allows.
package cii
