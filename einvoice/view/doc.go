// Package view renders an e-invoice as a page a person can read: the accountant's view of
// a CII or UBL invoice or credit note (any ZUGFeRD profile, XRechnung), which as XML is
// unreadable to the people who must check and book it (issue #22).
//
// HTML takes the parsed model (*einvoice.Invoice) and writes one self-contained HTML page
// in German, English or French: parties, references, lines with their sub-lines and
// allowances, VAT breakdown, totals, payment instructions, notes and supporting documents,
// and, when given, the validation verdict. The same page, with Options.Print, is what
// Chromium prints to PDF, so it carries its A4 print rules and no script, external
// resource or web font.
//
// The view shows, never interprets: every value of the model appears as written (numbers
// with all their digits, only grouped and punctuated per language; odd dates as written),
// and codes keep their code beside the words for them. The corpus test holds it to that
// by walking the model and finding each value in the page's visible text. Every value is
// escaped by html/template; only http and https locations become links.
package view
