package receipt

// Goods keys of shops, which choose the accounts of a shop receipt.
const (
	goodsGroceries   = "groceries"
	goodsTools       = "tools"
	goodsFurniture   = "furniture"
	goodsElectronics = "electronics"
	goodsOffice      = "office"
	goodsBooks       = "books"
	goodsPostage     = "postage"
	goodsPharmacy    = "pharmacy"
)

// accountTable maps an expense category to its accounts in DATEV's standard charts SKR03
// (process-oriented) and SKR04 (balance-sheet-oriented). Travel is booked as employee travel
// (Reisekosten Arbeitnehmer), the usual case of an expense report; a sole proprietor's own
// travel goes to the Unternehmer accounts named in the note.
var accountTable = map[string]Accounts{
	Fuel:        {Category: "Laufende Kfz-Betriebskosten", SKR03: "4530", SKR04: "6530"},
	Parking:     {Category: "Laufende Kfz-Betriebskosten", SKR03: "4530", SKR04: "6530", Note: "Parking on a business trip without a company car: Reisekosten Arbeitnehmer Übernachtungs- und Reisenebenkosten, SKR03 4666, SKR04 6660."},
	Restaurant:  {Category: "Bewirtungskosten", SKR03: "4650", SKR04: "6640", Note: "70 % deductible; the occasion and the guests belong on the receipt (§ 4 Abs. 5 Nr. 2 EStG)."},
	Hotel:       {Category: "Reisekosten Arbeitnehmer Übernachtungsaufwand", SKR03: "4666", SKR04: "6660", Note: "Breakfast is subject to 19 % VAT, the room to 7 %; a sole proprietor books SKR03 4676, SKR04 6680."},
	Train:       {Category: "Reisekosten Arbeitnehmer Fahrtkosten", SKR03: "4663", SKR04: "6663", Note: "A sole proprietor books SKR03 4673, SKR04 6673."},
	Flight:      {Category: "Reisekosten Arbeitnehmer Fahrtkosten", SKR03: "4663", SKR04: "6663", Note: "A sole proprietor books SKR03 4673, SKR04 6673."},
	Bus:         {Category: "Reisekosten Arbeitnehmer Fahrtkosten", SKR03: "4663", SKR04: "6663", Note: "A sole proprietor books SKR03 4673, SKR04 6673."},
	Taxi:        {Category: "Reisekosten Arbeitnehmer Fahrtkosten", SKR03: "4663", SKR04: "6663", Note: "A sole proprietor books SKR03 4673, SKR04 6673."},
	Invoice:     {Category: "Sonstige betriebliche Aufwendungen", SKR03: "4900", SKR04: "6300", Note: "Book an invoice by what it bills; this is the catch-all."},
	CashReceipt: {Category: "Sonstiger Betriebsbedarf", SKR03: "4980", SKR04: "6850"},

	goodsGroceries:   {Category: "Sonstiger Betriebsbedarf", SKR03: "4980", SKR04: "6850", Note: "Food and drink for staff are Aufmerksamkeiten (SKR03 4140, SKR04 6130) when given to employees."},
	goodsTools:       {Category: "Werkzeuge und Kleingeräte", SKR03: "4985", SKR04: "6845"},
	goodsFurniture:   {Category: "Geringwertige Wirtschaftsgüter", SKR03: "0480", SKR04: "0670", Note: "Up to 800 EUR net per item; above that an asset to depreciate."},
	goodsElectronics: {Category: "Geringwertige Wirtschaftsgüter", SKR03: "0480", SKR04: "0670", Note: "Up to 800 EUR net per item; above that an asset to depreciate."},
	goodsOffice:      {Category: "Bürobedarf", SKR03: "4930", SKR04: "6815"},
	goodsBooks:       {Category: "Zeitschriften, Bücher", SKR03: "4940", SKR04: "6820"},
	goodsPostage:     {Category: "Porto", SKR03: "4910", SKR04: "6800"},
	goodsPharmacy:    {Category: "Sonstiger Betriebsbedarf", SKR03: "4980", SKR04: "6850", Note: "Medicine is private unless it stocks the first-aid kit."},
}

// Suggest chooses the accounts of a receipt: its type, and for a shop receipt the goods of
// a known shop.
func Suggest(typ, issuerLower string) Accounts {
	if typ == CashReceipt || typ == "" {
		if b, _ := findBrand(issuerLower); b != nil && b.goods != "" {
			return accountTable[b.goods]
		}
		return accountTable[CashReceipt]
	}
	if a, ok := accountTable[typ]; ok {
		return a
	}
	return accountTable[CashReceipt]
}
