package receipt

import (
	"fmt"
	"time"

	"github.com/shopspring/decimal"

	"github.com/papierkram/papierkram/einvoice"
)

// vatRates are the VAT rates each country allows (standard, reduced, super-reduced, zero),
// as percent strings.
var vatRates = map[string][]string{
	"DE": {"19", "7", "0", "16", "5"}, // 16 and 5: 1 July to 31 December 2020 only, checked below
	"AT": {"20", "13", "10", "0"},
	"CH": {"8.1", "2.6", "3.8", "7.7", "2.5", "3.7", "0"},
	"FR": {"20", "10", "5.5", "2.1", "0"},
	"NL": {"21", "9", "0"},
	"BE": {"21", "12", "6", "0"},
	"LU": {"17", "16", "14", "8", "7", "3", "0"},
	"IT": {"22", "10", "5", "4", "0"},
	"ES": {"21", "10", "4", "0"},
	"PT": {"23", "13", "6", "0"},
	"PL": {"23", "8", "5", "0"},
	"CZ": {"21", "12", "15", "10", "0"}, // 15 and 10 until 2023
	"DK": {"25", "0"},
	"SE": {"25", "12", "6", "0"},
	"FI": {"25.5", "24", "14", "13.5", "10", "0"},
	"NO": {"25", "15", "12", "0"},
	"LT": {"21", "9", "5", "0"},
	"LV": {"21", "12", "5", "0"},
	"EE": {"24", "22", "20", "13", "9", "5", "0"},
	"HU": {"27", "18", "5", "0"},
	"SK": {"23", "20", "19", "10", "5", "0"},
	"SI": {"22", "9.5", "5", "0"},
	"HR": {"25", "13", "5", "0"},
	"IE": {"23", "13.5", "9", "4.8", "0"},
	"GB": {"20", "5", "0"},
}

// formerRates are rates a country charged in a period that has ended, with its first and
// last day ("" for a period whose start is long past): a receipt of 2007 from Switzerland
// charges 7.6 %, one of 2005 from Germany 16 %. A receipt charges them only when dated in
// their period (rateAllowed); a table's rows whose rate OCR lost are tried at the rates in
// force (tableRates).
var formerRates = map[string][]formerRate{
	"DE": {{"16", "1998-04-01", "2006-12-31"}},
	"AT": {{"5", "2020-07-01", "2021-12-31"}},
	"CH": {{"8", "2011-01-01", "2017-12-31"}, {"7.6", "2001-01-01", "2010-12-31"}, {"2.4", "2001-01-01", "2010-12-31"}, {"3.6", "2001-01-01", "2010-12-31"}},
	"FR": {{"19.6", "", "2013-12-31"}, {"7", "2012-01-01", "2013-12-31"}},
	"NL": {{"19", "", "2012-09-30"}, {"6", "", "2018-12-31"}},
	"IT": {{"21", "2011-09-17", "2013-09-30"}, {"20", "", "2011-09-16"}},
	"ES": {{"18", "2010-07-01", "2012-08-31"}, {"8", "2010-07-01", "2012-08-31"}, {"16", "", "2010-06-30"}, {"7", "", "2010-06-30"}},
	"PL": {{"22", "", "2010-12-31"}, {"7", "", "2010-12-31"}, {"3", "", "2010-12-31"}},
	"CZ": {{"20", "2010-01-01", "2012-12-31"}, {"14", "2012-01-01", "2012-12-31"}},
	"GB": {{"17.5", "", "2011-01-03"}, {"15", "2008-12-01", "2009-12-31"}},
	"FI": {{"23", "2010-07-01", "2012-12-31"}, {"13", "2010-07-01", "2012-12-31"}, {"9", "2010-07-01", "2012-12-31"}, {"22", "", "2010-06-30"}, {"17", "", "2010-06-30"}, {"8", "", "2010-06-30"}},
}

// A formerRate is a rate and the days it held, as dates "YYYY-MM-DD" (from "" open).
type formerRate struct{ rate, from, until string }

// Check names.
const (
	CheckNetVAT     = "NET_PLUS_VAT_EQUALS_GROSS"
	CheckRates      = "VAT_RATES_ALLOWED"
	CheckDate       = "DATE_NOT_IN_FUTURE"
	CheckLines      = "LINE_SUM_EQUALS_TOTAL"
	CheckBreakdown  = "VAT_BREAKDOWN_EQUALS_TOTAL"
	CheckCash       = "TENDERED_MINUS_CHANGE_EQUALS_TOTAL"
	cent            = "0.02"
	covidCutFrom    = "2020-07-01"
	covidCutThrough = "2020-12-31"
)

// Plausibility runs the plausibility checks that the result's figures allow; a check whose
// figures are missing is left out rather than failed.
func Plausibility(r *Result, now time.Time) []Check {
	out := []Check{}
	tol := decimal.RequireFromString(cent)
	d := r.Data
	if d.Net.Valid() && d.VAT.Valid() && d.Gross.Valid() {
		sum := d.Net.Value().Add(d.VAT.Value())
		ok := sum.Sub(d.Gross.Value()).Abs().LessThanOrEqual(tol)
		out = append(out, Check{Name: CheckNetVAT, Passed: ok, Message: fmt.Sprintf("%s + %s = %s, gross %s", d.Net, d.VAT, sum.StringFixed(2), d.Gross)})
	}
	if len(r.VAT) > 0 {
		country := r.Country
		if country == "" {
			country = "DE"
		}
		allowed, known := vatRates[country]
		if known {
			bad := ""
			for _, l := range r.VAT {
				if !rateAllowed(allowed, l.Rate.Value(), country, string(d.Date)) {
					bad += l.Rate.String() + " % "
				}
			}
			msg := "every rate is one of " + country + "'s"
			if bad != "" {
				msg = "not a " + country + " rate on that date: " + bad
			}
			out = append(out, Check{Name: CheckRates, Passed: bad == "", Message: msg})
		}
		if d.Gross.Valid() {
			sum, complete := decimal.Zero, true
			for _, l := range r.VAT {
				if !l.Gross.Valid() {
					complete = false
				}
				sum = sum.Add(l.Gross.Value())
			}
			if complete {
				// The amount paid may differ from the breakdown by the cash rounding printed.
				out = append(out, Check{Name: CheckBreakdown, Passed: sum.Sub(d.Gross.Value()).Abs().LessThanOrEqual(tol.Add(r.rounding)),
					Message: fmt.Sprintf("breakdown gross %s, total %s", sum.StringFixed(2), d.Gross)})
			}
		}
	}
	if d.Date != "" {
		t := d.Date.Time()
		ok := !t.After(now)
		msg := "dated " + string(d.Date)
		if !ok {
			msg = string(d.Date) + " is in the future"
		}
		out = append(out, Check{Name: CheckDate, Passed: ok, Message: msg})
	}
	if r.tendered.Sign() > 0 && d.Gross.Valid() {
		// The cash given less the change is what was paid: a total equal to the cash given
		// is the tendered amount read as the total.
		paid := r.tendered.Sub(r.change)
		out = append(out, Check{Name: CheckCash, Passed: paid.Sub(d.Gross.Value()).Abs().LessThanOrEqual(tol),
			Message: fmt.Sprintf("given %s, change %s: paid %s, total %s", r.tendered.StringFixed(2), r.change.StringFixed(2), paid.StringFixed(2), d.Gross)})
	}
	if sum, ok := itemsSum(r.Items); ok && d.Gross.Valid() {
		out = append(out, Check{Name: CheckLines, Passed: sum.Sub(d.Gross.Value()).Abs().LessThanOrEqual(tol),
			Message: fmt.Sprintf("%d items sum to %s, total %s", len(r.Items), sum.StringFixed(2), d.Gross)})
	}
	return out
}

// rateAllowed: Germany's 16 % and 5 % held only in the second half of 2020, and replaced
// 19 % and 7 % then; a former rate held in its period (formerRates). An undated receipt
// allows every rate its country has had.
func rateAllowed(allowed []string, rate decimal.Decimal, country, date string) bool {
	for _, f := range formerRates[country] {
		if rate.Equal(decimal.RequireFromString(f.rate)) && (date == "" || date >= f.from && date <= f.until) {
			return true
		}
	}
	for _, a := range allowed {
		if rate.Equal(decimal.RequireFromString(a)) {
			if country != "DE" || date == "" {
				return true
			}
			cut := date >= covidCutFrom && date <= covidCutThrough
			switch a {
			case "16", "5":
				return cut
			case "19", "7":
				return !cut
			}
			return true
		}
	}
	return false
}

// datePlausible: a receipt's date as its other figures allow it: not in the future, and in
// the country's VAT rates on that day (a German receipt dated August 2020 that charges 19 %
// has a digit of its date misread). OCR's misread date then gets a second reading.
func datePlausible(date einvoice.Date, vat []VATLine, country string, now time.Time) bool {
	if date == "" || date.Time().After(now.Add(24*time.Hour)) {
		return false
	}
	if country == "" {
		country = "DE"
	}
	allowed, known := vatRates[country]
	if !known {
		return true
	}
	for _, l := range vat {
		if l.Rate.Valid() && !rateAllowed(allowed, l.Rate.Value(), country, string(date)) {
			return false
		}
	}
	return true
}
