package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/papierkram/papierkram/einvoice"
	"github.com/papierkram/papierkram/einvoice/rules"
	"github.com/papierkram/papierkram/einvoice/syntax"
	"github.com/papierkram/papierkram/fault"
	"github.com/papierkram/papierkram/internal/ops"
)

func readInput(path string) ([]byte, error) {
	if path == "-" {
		b, err := os.ReadFile("/dev/stdin")
		return b, err
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fault.Wrap(fault.InvalidInput, err, "%v", err)
	}
	return b, nil
}

func printJSON(cmd *cobra.Command, v any) error {
	enc := json.NewEncoder(cmd.OutOrStdout())
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func xrechnungCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "xrechnung", Short: "E-invoices (CII, UBL) on local files: generate, parse, detect, transform, validate"}

	var format, version, out string
	generate := &cobra.Command{
		Use: "generate INVOICE.json", Short: "Render InvoiceData JSON as e-invoice XML under its BT-24 (XRechnung when it names none), checked by the rules", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			b, err := readInput(args[0])
			if err != nil {
				return err
			}
			var inv einvoice.Invoice
			d := json.NewDecoder(bytes.NewReader(b))
			d.DisallowUnknownFields()
			if err := d.Decode(&inv); err != nil {
				return fault.Wrap(fault.InvalidInput, err, "%s: %v", args[0], err)
			}
			s, err := syntax.Parse(format, syntax.CII)
			if err != nil {
				return err
			}
			x, r, err := rules.Generate(cmd.Context(), &inv, s, version)
			if err != nil {
				return err
			}
			for _, w := range r.Warnings() {
				fmt.Fprintln(cmd.ErrOrStderr(), "papierkram: warning:", w)
			}
			return writeOut(cmd, out, x)
		},
	}
	generate.Flags().StringVar(&format, "format", "CII", "CII or UBL")
	generate.Flags().StringVar(&version, "version", "", "XRechnung version when the invoice names no specification (BT-24): 3.0 (default) or 2.3")
	outFlag(generate, &out)

	parse := &cobra.Command{
		Use: "parse FILE.xml", Short: "Read a CII or UBL invoice into InvoiceData JSON", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			b, err := readInput(args[0])
			if err != nil {
				return err
			}
			inv, _, err := syntax.Read(cmd.Context(), b)
			if err != nil {
				return err
			}
			return printJSON(cmd, inv)
		},
	}

	detect := &cobra.Command{
		Use: "detect FILE.xml", Short: "Name the syntax, document type, guideline and profile", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			b, err := readInput(args[0])
			if err != nil {
				return err
			}
			in, err := syntax.Detect(cmd.Context(), b)
			if err != nil {
				return err
			}
			return printJSON(cmd, in)
		},
	}

	var target, tout string
	transform := &cobra.Command{
		Use: "transform FILE.xml", Short: "Convert CII to UBL (default) or UBL to CII", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			b, err := readInput(args[0])
			if err != nil {
				return err
			}
			t, err := syntax.Parse(target, syntax.UBL)
			if err != nil {
				return err
			}
			x, _, err := syntax.Transform(cmd.Context(), b, t)
			if err != nil {
				return err
			}
			return writeOut(cmd, tout, x)
		},
	}
	transform.Flags().StringVar(&target, "to", "UBL", "target syntax: UBL or CII")
	outFlag(transform, &tout)

	var details, asJSON bool
	var ruleSet string
	validate := &cobra.Command{
		Use: "validate FILE.xml...", Short: "Check e-invoices against the EN 16931 rules; exit status 1 when one is invalid", Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			out := cmd.OutOrStdout()
			invalid := 0
			for _, name := range args {
				b, err := readInput(name)
				var r *rules.Report
				if err == nil {
					r, err = rules.ValidateWith(cmd.Context(), b, rules.Options{RuleSet: ruleSet})
				}
				if err != nil {
					invalid++
					fmt.Fprintf(out, "%s: INVALID: %v\n", name, err)
					continue
				}
				if asJSON {
					if err := json.NewEncoder(out).Encode(struct {
						File string `json:"file"`
						*rules.Report
					}{name, r}); err != nil {
						return err
					}
				} else {
					verdict := "valid"
					if !r.Valid {
						verdict = "INVALID, e-invoice with business rule errors"
						if r.Summary.Verdict == rules.VerdictNotAnEInvoice {
							verdict = "INVALID, not an e-invoice (schema errors)"
						}
						invalid++
					}
					fmt.Fprintf(out, "%s: %s (%s %s, %s %s, %d checks, %d errors, %d warnings)\n", name, verdict, r.Syntax, r.DocumentType, r.RuleSet.Name, r.RuleSet.Version, r.Summary.Checked, r.Summary.Errors, r.Summary.Warnings)
				}
				if !r.Valid && asJSON {
					invalid++
				}
				if details && !asJSON {
					for _, f := range r.Failed() {
						fmt.Fprintf(out, "  %s [%s] %s at %s\n", f.ID, f.Severity, f.Message, f.Location)
					}
				}
			}
			if invalid > 0 {
				return fmt.Errorf("%d of %d invoices invalid", invalid, len(args))
			}
			return nil
		},
	}
	validate.Flags().BoolVarP(&details, "details", "d", false, "list each failed rule under its file")
	validate.Flags().BoolVar(&asJSON, "json", false, "print each report as a JSON line")
	validate.Flags().StringVar(&ruleSet, "rule-set", "auto", "rule set: auto (by the document's BT-24), en16931, xrechnung-3.0, facturx-1.08 or facturx-1.07")

	cmd.AddCommand(generate, parse, detect, transform, validate, opCommand(ops.Visualize))
	return cmd
}
