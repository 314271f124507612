// Package einvoice is the semantic model of an electronic invoice after EN 16931-1: every
// business term (BT) and group (BG) as a Go field, with its number in the doc comment, plus
// the few extensions of XRechnung and ZUGFeRD EXTENDED the product carries. Money,
// quantities and rates are exact decimals. The syntaxes live in subpackages: cii (UN/CEFACT
// CrossIndustryInvoice, the syntax of ZUGFeRD, Factur-X and XRechnung CII), ubl (UBL 2.1
// Invoice and CreditNote) and syntax (detection and conversion between them).
//
// The model's JSON form is the API's InvoiceData.
package einvoice
