// Package rules validates e-invoices natively: the EN 16931 business rules, the syntax
// binding rules of CII and UBL, the code lists, and the XRechnung and Factur-X / ZUGFeRD
// rules on top, with the official rule ids and severities.
//
// The rules work on the XML tree, not on the model, because the official verdicts are
// defined on the document as written: a rule fires where its context element occurs, and
// a fragment that lacks most of an invoice is still judged rule by rule. Each rule set is a
// list of patterns in the manner of Schematron: every element is matched against the rules
// of each pattern in order, the first rule whose context matches checks its assertions.
package rules
