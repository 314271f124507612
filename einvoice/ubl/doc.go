// Package ubl reads and writes OASIS UBL 2.1 Invoice and CreditNote documents as profiled
// by EN 16931 (CEN/TS 16931-3-2), PEPPOL BIS Billing 3.0 and XRechnung UBL, including the
// XRechnung extension's sub-lines and third-party payments.
package ubl
