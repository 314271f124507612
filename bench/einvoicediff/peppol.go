package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/papierkram/papierkram/einvoice"
	"github.com/papierkram/papierkram/einvoice/syntax"
)

// With -peppol, a Peppol BIS Billing 3.0 invoice (BT-24 exactly Peppol's, as our
// validator chooses its peppol-bis-3.0 rule set by) is judged officially by CEN's rules of
// its syntax and OpenPEPPOL's Schematron of that syntax (PEPPOL-EN16931-UBL.sch or -CII.sch,
// compiled by SchXslt), ours by the peppol-bis-3.0 rule set, and the PEPPOL-* and national
// rule ids (DE-R, DK-R, GR-R, …) are compared too. CEN's rules run at the harness's
// version on both sides (the Peppol release carries an older copy of them, which the
// peppol-bis-3.0 rule set does not follow). Without -peppol a Peppol BIS invoice is judged
// by CEN's rules alone on both sides, ours by the en16931 rule set.
var peppolDir = flag.String("peppol", "", "rules/sch of a checkout of OpenPEPPOL/peppol-bis-invoice-3: judge Peppol BIS invoices by its Peppol Schematron as well")

// peppolSet is the name of the Peppol Schematron of a syntax among the official sets.
func peppolSet(s syntax.Syntax) string { return "Peppol-" + string(s) }

// isPeppolBIS says whether a guideline (BT-24) makes our validator choose the
// peppol-bis-3.0 rule set: the same test, so both sides take the same documents.
func isPeppolBIS(guideline string) bool {
	return strings.TrimSpace(guideline) == einvoice.GuidelinePeppolBIS3
}

// peppolSets adds the Peppol Schematron to the official sets of a Peppol BIS invoice
// when -peppol is given.
func peppolSets(d *doc, in syntax.Info) {
	if *peppolDir == "" || !isPeppolBIS(in.Guideline) {
		return
	}
	d.sets = append(d.sets, peppolSet(in.Syntax))
	d.byPeppol = true
}

// compilePeppol compiles the Peppol Schematron of both syntaxes with compile (SchXslt) and
// tries each compiled stylesheet on a probe invoice: what SchXslt did not carry over of
// the Schematron (its xsl:function elements, its global lets) ends the harness at the
// start, rather than passing every document or leaving them all unjudged.
func compilePeppol(work string, sets map[string]string, compile func(name, sch string)) {
	if *peppolDir == "" {
		return
	}
	for _, s := range []syntax.Syntax{syntax.UBL, syntax.CII} {
		name := peppolSet(s)
		compile(name, filepath.Join(*peppolDir, "PEPPOL-EN16931-"+string(s)+".sch"))
		in, out := filepath.Join(work, name+"-probe.xml"), filepath.Join(work, name+"-probe.svrl")
		check(os.WriteFile(in, []byte(peppolProbe[s]), 0o644))
		run("-xsl:"+sets[name], "-s:"+in, "-o:"+out)
		svrl, err := os.ReadFile(out)
		check(err)
		failed := map[string]bool{}
		for _, f := range failedAsserts(svrl) {
			failed[f.id] = true
		}
		// The probe names an unknown process (R007, from a global let), gives no endpoints
		// (R010, R020) and a GLN with a wrong check digit (COMMON-R040, from a function of
		// the Schematron): a stylesheet whose lets or functions did not carry over fails
		// (run ends the harness) or misses one.
		for _, id := range []string{"PEPPOL-EN16931-R007", "PEPPOL-EN16931-R010", "PEPPOL-EN16931-R020", "PEPPOL-COMMON-R040"} {
			check(map[bool]error{true: fmt.Errorf("%s: the compiled Peppol Schematron does not report %s on a probe (it reported %v)", name, id, failed)}[!failed[id]])
		}
	}
}

// peppolProbe is a minimal invoice of each syntax for compilePeppol.
var peppolProbe = map[syntax.Syntax]string{
	syntax.UBL: `<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2" xmlns:cac="urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2" xmlns:cbc="urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2">
<cbc:CustomizationID>` + einvoice.GuidelinePeppolBIS3 + `</cbc:CustomizationID><cbc:ProfileID>urn:fdc:peppol.eu:2017:poacc:billing:XX:1.0</cbc:ProfileID>
<cac:AccountingSupplierParty><cac:Party><cac:PartyIdentification><cbc:ID schemeID="0088">10</cbc:ID></cac:PartyIdentification></cac:Party></cac:AccountingSupplierParty><cac:AccountingCustomerParty><cac:Party/></cac:AccountingCustomerParty></Invoice>`,
	syntax.CII: `<rsm:CrossIndustryInvoice xmlns:rsm="urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100" xmlns:ram="urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:100">
<rsm:ExchangedDocumentContext><ram:BusinessProcessSpecifiedDocumentContextParameter><ram:ID>urn:fdc:peppol.eu:2017:poacc:billing:XX:1.0</ram:ID></ram:BusinessProcessSpecifiedDocumentContextParameter>
<ram:GuidelineSpecifiedDocumentContextParameter><ram:ID>` + einvoice.GuidelinePeppolBIS3 + `</ram:ID></ram:GuidelineSpecifiedDocumentContextParameter></rsm:ExchangedDocumentContext>
<rsm:SupplyChainTradeTransaction><ram:ApplicableHeaderTradeAgreement><ram:SellerTradeParty><ram:GlobalID schemeID="0088">10</ram:GlobalID></ram:SellerTradeParty><ram:BuyerTradeParty/></ram:ApplicableHeaderTradeAgreement></rsm:SupplyChainTradeTransaction></rsm:CrossIndustryInvoice>`,
}

// peppolReport prints the agreement on the Peppol BIS invoices apart: judged with -peppol
// by CEN's and Peppol's rules on both sides, else by CEN's alone. Those an official
// stylesheet failed on are counted apart, as in the report above, and of them those only
// the Peppol Schematron failed on, and how many of those are schema-valid (a dynamic error
// on a document the schema lets through, e.g. an empty payment means code compared as a
// number).
func peppolReport(docs []*doc) {
	n, verdict, valid, ids, unjudged, byPeppolOnly, byPeppolValid := 0, 0, 0, 0, 0, 0, 0
	for _, d := range docs {
		if !d.peppol {
			continue
		}
		if d.unjudged {
			unjudged++
			if len(d.failedOn) == 1 && strings.HasPrefix(d.failedOn[0], "Peppol-") {
				byPeppolOnly++
				if d.schemaOK {
					byPeppolValid++
				}
			}
			continue
		}
		n++
		if d.ourValid == d.offOK {
			verdict++
		}
		if !d.schemaOK {
			continue
		}
		valid++
		if sameIDs(d) {
			ids++
		}
	}
	if n+unjudged == 0 {
		return
	}
	by, failed := "the EN 16931 rules alone on both sides (no -peppol: no Peppol Schematron here)", fmt.Sprintf("%d more the official stylesheets failed on", unjudged)
	if *peppolDir != "" {
		by = "CEN's EN 16931 and OpenPEPPOL's rules (ours peppol-bis-3.0), PEPPOL- and national ids compared"
		failed += fmt.Sprintf(", %d of them the Peppol Schematron alone, %d of those schema-valid", byPeppolOnly, byPeppolValid)
	}
	fmt.Printf("  Peppol BIS invoices, judged by %s: %d (%s); same verdict %d (%.2f %%); schema-valid: same fatal rule ids %d of %d (%.2f %%)\n",
		by, n, failed, verdict, 100*float64(verdict)/float64(max(n, 1)), ids, valid, 100*float64(ids)/float64(max(valid, 1)))
}

// sameIDs says whether both sides failed the same fatal rule ids.
func sameIDs(d *doc) bool {
	if len(d.official) != len(d.ours) {
		return false
	}
	for id := range d.official {
		if !d.ours[id] {
			return false
		}
	}
	return true
}

// ourPeppolRuleSet is the rule set ours judges a Peppol BIS invoice by: Peppol's own
// with -peppol, else EN 16931's, as the official side then runs CEN's rules alone.
func ourPeppolRuleSet(d *doc) string {
	if d.byPeppol {
		return "peppol-bis-3.0"
	}
	return "en16931"
}
