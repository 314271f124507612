package rules

// The national rules of Peppol BIS Billing 3.0 (DE-R, DK-R, GR-R, GR-S, IS-R, IT-R, NL-R,
// NO-R, SE-R), which apply by the seller's country, as in OpenPEPPOL's Schematron.

// peppolNationalUBL holds the national rules for UBL.
func peppolNationalUBL() []pattern { return nil }

// peppolNationalCII holds the national rules for CII.
func peppolNationalCII() []pattern { return nil }
