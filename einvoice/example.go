package einvoice

// Example is a complete invoice: an XRechnung 3.0 with two lines, an allowance, a charge,
// two VAT rates and a SEPA credit transfer. It documents InvoiceData and is what the tests
// generate in every syntax and profile.
func Example() *Invoice {
	d := MustDecimal
	return &Invoice{
		Number:                 "RE-2026-0042",
		IssueDate:              "2026-11-02",
		TypeCode:               "380",
		Currency:               "EUR",
		DueDate:                "2026-12-02",
		BuyerReference:         "04011000-12345-34",
		PurchaseOrderReference: "PO-7781",
		ContractReference:      "RV-2026-17",
		PaymentTerms:           "Zahlbar innerhalb von 30 Tagen ohne Abzug.",
		Notes:                  []Note{{SubjectCode: "AAI", Text: "Vielen Dank für Ihren Auftrag."}},
		BusinessProcess:        ProcessPeppol,
		Specification:          GuidelineXRechnung30,
		Seller: Party{
			Name:              "Papierkram Beispiel GmbH",
			TradingName:       "Papierkram",
			Identifiers:       []Identifier{{ID: "4000001123452", Scheme: "0088"}},
			LegalRegistration: Identifier{ID: "HRB 12345"},
			VATID:             "DE123456789",
			TaxNumber:         "201/113/40209",
			LegalInfo:         "Geschäftsführerin: Erika Mustermann, Amtsgericht Berlin HRB 12345",
			ElectronicAddress: Identifier{ID: "rechnung@papierkram.example", Scheme: "EM"},
			Address:           Address{Line1: "Musterstraße 1", City: "Berlin", PostCode: "10115", Country: "DE"},
			Contact:           Contact{Name: "Erika Mustermann", Phone: "+49 30 1234567", Email: "erika@papierkram.example"},
		},
		Buyer: Party{
			Name:              "Stadtverwaltung Musterstadt",
			Identifiers:       []Identifier{{ID: "K-4711"}},
			VATID:             "DE987654321",
			ElectronicAddress: Identifier{ID: "04011000-12345-34", Scheme: "0204"},
			Address:           Address{Line1: "Rathausplatz 1", Line2: "Kämmerei", City: "Musterstadt", PostCode: "12345", Country: "DE"},
			Contact:           Contact{Name: "Max Mustermann", Email: "max@musterstadt.example"},
		},
		Delivery:        Delivery{PartyName: "Stadtbibliothek", Date: "2026-10-28", Address: Address{Line1: "Bücherweg 5", City: "Musterstadt", PostCode: "12345", Country: "DE"}},
		InvoicingPeriod: Period{Start: "2026-10-01", End: "2026-10-31"},
		Payment: Payment{
			MeansCode: "58", MeansText: "SEPA-Überweisung", RemittanceInformation: "RE-2026-0042",
			CreditTransfers: []CreditTransfer{{AccountID: "DE02120300000000202051", AccountName: "Papierkram Beispiel GmbH", ServiceProvider: "BYLADEM1001"}},
		},
		Allowances: []AllowanceCharge{{Amount: d("10.00"), BaseAmount: d("200.00"), Percentage: d("5"), VATCategory: "S", VATRate: d("19"), Reason: "Treuerabatt", ReasonCode: "95"}},
		Charges:    []AllowanceCharge{{Amount: d("5.00"), VATCategory: "S", VATRate: d("19"), Reason: "Versandkosten", ReasonCode: "FC"}},
		Totals: Totals{
			LineTotal: d("230.00"), AllowanceTotal: d("10.00"), ChargeTotal: d("5.00"), NetTotal: d("225.00"),
			VATTotal: d("39.15"), GrossTotal: d("264.15"), AmountDue: d("264.15"),
		},
		VATBreakdown: []VATBreakdown{
			{TaxableAmount: d("195.00"), TaxAmount: d("37.05"), Category: "S", Rate: d("19")},
			{TaxableAmount: d("30.00"), TaxAmount: d("2.10"), Category: "S", Rate: d("7")},
		},
		Lines: []Line{
			{
				ID: "1", Quantity: d("8"), Unit: "HUR", NetAmount: d("200.00"), Note: "Beratung vor Ort",
				Price:       Price{Net: d("25.00"), Gross: d("25.00"), Discount: d("0.00")},
				VATCategory: "S", VATRate: d("19"),
				Item: Item{Name: "Beratung", Description: "Einführung der E-Rechnung", SellerID: "SRV-01",
					Classifications: []Classification{{ID: "72224000", Scheme: "ZZZ"}}, Attributes: []ItemAttribute{{Name: "Berater", Value: "E. Mustermann"}}},
			},
			{
				ID: "2", Quantity: d("2"), Unit: "H87", NetAmount: d("30.00"),
				Price:       Price{Net: d("15.00")},
				VATCategory: "S", VATRate: d("7"),
				Item: Item{Name: "Handbuch E-Rechnung", StandardID: Identifier{ID: "4006381333931", Scheme: "0160"}, OriginCountry: "DE"},
			},
		},
	}
}
