package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/papierkram/papierkram/einvoice"
	"github.com/papierkram/papierkram/einvoice/cii"
	"github.com/papierkram/papierkram/einvoice/rules"
	"github.com/papierkram/papierkram/einvoice/syntax"
	"github.com/papierkram/papierkram/fault"
	"github.com/papierkram/papierkram/internal/ops"
	"github.com/papierkram/papierkram/zugferd"
)

func zugferdCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "zugferd", Short: "ZUGFeRD / Factur-X PDFs on local files: embed, extract, validate"}

	var out string
	extract := &cobra.Command{
		Use: "extract FILE.pdf", Short: "Write the embedded invoice XML (or, with --json, the invoice read into InvoiceData)", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			b, err := readInput(args[0])
			if err != nil {
				return err
			}
			doc, _, err := zugferd.Extract(cmd.Context(), b)
			if err != nil {
				return err
			}
			if asJSON, _ := cmd.Flags().GetBool("json"); asJSON {
				inv, _, err := syntax.Read(cmd.Context(), doc.XML)
				if err != nil {
					return err
				}
				js, err := json.MarshalIndent(inv, "", "  ")
				if err != nil {
					return err
				}
				return writeOut(cmd, out, append(js, '\n'))
			}
			return writeOut(cmd, out, doc.XML)
		},
	}
	extract.Flags().Bool("json", false, "write InvoiceData JSON instead of the XML")
	outFlag(extract, &out)

	validate := &cobra.Command{
		Use: "validate FILE.pdf...", Short: "Check ZUGFeRD / Factur-X PDFs (the XML and the PDF container); exit status 1 when one is invalid", Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			w := cmd.OutOrStdout()
			invalid := 0
			l := newLocal()
			defer l.close()
			vo := zugferd.ValidateOptions{Pages: l.pages}
			for _, name := range args {
				b, err := readInput(name)
				var r *zugferd.Report
				if err == nil {
					r, err = zugferd.Validate(cmd.Context(), b, vo)
				}
				if err != nil {
					invalid++
					fmt.Fprintf(w, "%s: INVALID: %v\n", name, err)
					continue
				}
				verdict := "valid"
				if !r.Valid {
					verdict = "INVALID"
					invalid++
				}
				fmt.Fprintf(w, "%s: %s (%s %s, XML %d errors, PDF %s)\n", name, verdict, r.Profile, r.FileName, r.XML.Summary.Errors, map[bool]string{true: "ok", false: "fails"}[r.PDF.Valid])
				for _, x := range r.PDF.Results {
					if !x.Passed {
						fmt.Fprintf(w, "  %s [%s] %s\n", x.ID, x.Severity, x.Message)
					}
				}
				for _, x := range r.XML.Failed() {
					fmt.Fprintf(w, "  %s [%s] %s at %s\n", x.ID, x.Severity, x.Message, x.Location)
				}
			}
			if invalid > 0 {
				return fmt.Errorf("%d of %d files invalid", invalid, len(args))
			}
			return nil
		},
	}
	var invoice, profile, title string
	embed := &cobra.Command{
		Use:   "embed FILE.pdf --invoice INVOICE.json|INVOICE.xml",
		Short: "Make a PDF a ZUGFeRD / Factur-X e-invoice (PDF/A-3b with the CII embedded); the invoice is validated first",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			b, err := readInput(args[0])
			if err != nil {
				return err
			}
			src, err := readInput(invoice)
			if err != nil {
				return err
			}
			xml, err := invoiceXML(cmd.Context(), src, profile)
			if err != nil {
				return err
			}
			l := newLocal()
			defer l.close()
			res, err := zugferd.Embed(cmd.Context(), l.ghostscript, b, xml, zugferd.Options{Title: title})
			if err != nil {
				printFailed(cmd, reportOf(err))
				return err
			}
			return writeOut(cmd, out, res.PDF)
		},
	}
	embed.Flags().StringVar(&invoice, "invoice", "", "the invoice: InvoiceData JSON, or a CII XML (required)")
	embed.Flags().StringVar(&profile, "profile", "", "MINIMUM, BASICWL, BASIC, EN16931, EXTENDED or XRECHNUNG (default: the invoice's BT-24, else EN16931)")
	embed.Flags().StringVar(&title, "title", "", "document title (default: the PDF's own, else 'Invoice <number>')")
	embed.MarkFlagRequired("invoice")
	outFlag(embed, &out)

	cmd.AddCommand(extract, validate, embed, opCommand(ops.Create))
	return cmd
}

// invoiceXML is the CII to embed: InvoiceData JSON written for the profile, or a CII XML
// as it is (rewritten only when a profile is asked for).
func invoiceXML(ctx context.Context, src []byte, profile string) ([]byte, error) {
	var p einvoice.Profile
	if profile != "" {
		var err error
		if p, err = einvoice.ParseProfile(profile); err != nil {
			return nil, err
		}
	}
	var inv *einvoice.Invoice
	if trimmed := bytes.TrimLeft(src, " \t\r\n\ufeff"); len(trimmed) > 0 && trimmed[0] == '<' {
		if p == "" {
			return src, nil
		}
		var err error
		if inv, _, err = syntax.Read(ctx, src); err != nil {
			return nil, err
		}
	} else {
		inv = new(einvoice.Invoice)
		d := json.NewDecoder(bytes.NewReader(src))
		d.DisallowUnknownFields()
		if err := d.Decode(inv); err != nil {
			return nil, fmt.Errorf("the invoice is neither XML nor InvoiceData JSON: %w", err)
		}
	}
	return cii.Write(inv, cii.Options{Profile: p})
}

func zugferdToXRechnungCmd() *cobra.Command {
	var out, target, version string
	var o zugferd.ConvertOptions
	var report bool
	cmd := &cobra.Command{
		Use: "zugferd-to-xrechnung FILE.pdf", Short: "Write the invoice of a ZUGFeRD / Factur-X PDF as XRechnung (UBL or CII), validated", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			b, err := readInput(args[0])
			if err != nil {
				return err
			}
			if o.Syntax, err = syntax.Parse(target, syntax.UBL); err != nil {
				return err
			}
			o.Version = version
			c, err := zugferd.ToXRechnung(cmd.Context(), b, o)
			if err != nil {
				printFailed(cmd, reportOf(err))
				return err
			}
			if report {
				printFailed(cmd, c.Report)
			}
			return writeOut(cmd, out, c.XML)
		},
	}
	cmd.Flags().StringVar(&target, "to", "UBL", "target syntax: UBL or CII")
	cmd.Flags().StringVar(&version, "version", "3.0", "XRechnung version: 3.0 or 2.3")
	cmd.Flags().StringVar(&o.LeitwegID, "leitweg-id", "", "Leitweg-ID for the buyer reference (BT-10)")
	cmd.Flags().StringVar(&o.LeitwegIDMode, "leitweg-id-mode", "", "append (default), replace or strict (default with --enforce-leitweg-id)")
	cmd.Flags().BoolVar(&o.EnforceLeitwegID, "enforce-leitweg-id", false, "fail unless BT-10 is a well-formed Leitweg-ID")
	cmd.Flags().BoolVar(&o.Validate, "validate", true, "fail when the XRechnung breaks a fatal rule")
	cmd.Flags().BoolVar(&report, "report", false, "list failed rules and warnings on stderr")
	outFlag(cmd, &out)
	return cmd
}

// reportOf is the validation report a refusal carries, or nil.
func reportOf(err error) *rules.Report {
	if fe := fault.As(err); fe != nil {
		r, _ := fe.Details["report"].(*rules.Report)
		return r
	}
	return nil
}

// printFailed lists a report's failed rules on stderr.
func printFailed(cmd *cobra.Command, r *rules.Report) {
	if r == nil {
		return
	}
	for _, x := range r.Failed() {
		fmt.Fprintf(cmd.ErrOrStderr(), "  %s [%s] %s at %s\n", x.ID, x.Severity, x.Message, x.Location)
	}
}
