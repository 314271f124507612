package main

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/papierkram/papierkram/einvoice/syntax"
	"github.com/papierkram/papierkram/zugferd"
)

func zugferdCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "zugferd", Short: "ZUGFeRD / Factur-X PDFs on local files: extract, validate"}

	var out string
	extract := &cobra.Command{
		Use: "extract FILE.pdf", Short: "Write the embedded invoice XML (or, with --json, the invoice read into InvoiceData)", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			b, err := readInput(args[0])
			if err != nil {
				return err
			}
			doc, _, err := zugferd.Extract(b)
			if err != nil {
				return err
			}
			if asJSON, _ := cmd.Flags().GetBool("json"); asJSON {
				inv, _, err := syntax.Read(doc.XML)
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
			for _, name := range args {
				b, err := readInput(name)
				var r *zugferd.Report
				if err == nil {
					r, err = zugferd.Validate(b)
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
	cmd.AddCommand(extract, validate)
	return cmd
}
