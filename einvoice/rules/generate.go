package rules

import (
	"context"
	"fmt"
	"strings"

	"github.com/papierkram/papierkram/einvoice"
	"github.com/papierkram/papierkram/einvoice/syntax"
	"github.com/papierkram/papierkram/fault"
)

// Generate writes inv in syntax s under the specification it names (syntax.Generate) and
// validates what it wrote, so that no invoice leaves that the official rules reject: a
// failed fatal rule is fault.Unprocessable naming the rules, with the report; otherwise the
// XML comes with its report (warnings for the caller to pass on).
func Generate(ctx context.Context, inv *einvoice.Invoice, s syntax.Syntax, version string) ([]byte, *Report, error) {
	out, err := syntax.Generate(inv, s, version)
	if err != nil {
		return nil, nil, err
	}
	r, err := Validate(ctx, out)
	if err != nil {
		return nil, nil, fmt.Errorf("validating the generated invoice: %w", err)
	}
	if !r.Valid {
		return nil, r, fault.New(fault.Unprocessable, "the invoice breaks %d rule(s) of %s, so no XML was written: %s", r.Summary.Errors, r.Guideline, Describe(r.Failed())).With("report", r)
	}
	return out, r, nil
}

// Describe names the failed fatal rules among rs with their messages, at most five.
func Describe(rs []Result) string {
	var s []string
	for _, x := range rs {
		if x.Passed || x.Severity != Fatal {
			continue
		}
		if len(s) == 5 {
			s = append(s, "...")
			break
		}
		s = append(s, x.ID+" ("+x.Message+")")
	}
	return strings.Join(s, "; ")
}

// Warnings names the failed rules that are not fatal, for a result made all the same:
// "2 rule warning(s): BR-DE-21, PEPPOL-EN16931-R004", or nothing.
func (r *Report) Warnings() []string {
	var ids []string
	for _, x := range r.Failed() {
		if x.Severity != Fatal {
			ids = append(ids, x.ID)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	return []string{fmt.Sprintf("%d rule warning(s): %s", len(ids), strings.Join(ids, ", "))}
}
