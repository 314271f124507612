package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/papierkram/papierkram/receipt"
)

func receiptCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "receipt", Short: "Receipts on local files: extract, export"}
	var out string

	extract := &cobra.Command{
		Use: "extract FILE...", Short: "Read receipts (images or PDFs) into bookkeeping data, as JSON (one result, or an array for several files)",
		Long: `Read receipts (JPEG, PNG, WebP, GIF, TIFF or PDF) with OCR and the rules engine; with
PAPIERKRAM_LLM_BASE_URL and PAPIERKRAM_LLM_MODEL set, a language model reads them too.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			l := newLocal()
			defer l.close()
			e := &receipt.Extractor{OCR: l.tesseract, Second: l.Second(), PDF: l.poppler, Model: modelFromEnv()}
			var results []*receipt.Result
			for _, f := range args {
				b, err := readInput(f)
				if err != nil {
					return err
				}
				r, err := e.Extract(cmd.Context(), b, filepath.Base(f))
				if err != nil {
					return fmt.Errorf("%s: %w", f, err)
				}
				results = append(results, r)
			}
			var v any = results
			if len(results) == 1 {
				v = results[0]
			}
			b, err := json.MarshalIndent(v, "", "  ")
			if err != nil {
				return err
			}
			return writeOut(cmd, out, append(b, '\n'))
		},
	}
	outFlag(extract, &out)

	var (
		format     string
		datev      receipt.DATEVOptions
		fiscalYrs  string
		delim, sep string
	)
	export := &cobra.Command{
		Use: "export DATA.json --format csv|xlsx|datev", Short: "Export a JSON array of ReceiptData (or of extraction results) to CSV, XLSX or a DATEV booking batch", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			b, err := readInput(args[0])
			if err != nil {
				return err
			}
			rows, err := exportRows(b)
			if err != nil {
				return fmt.Errorf("%s: %w", args[0], err)
			}
			var res []byte
			switch format {
			case "csv":
				o := receipt.CSVOptions{}
				if o.Delimiter, err = oneRune("--delimiter", delim); err != nil {
					return err
				}
				if o.DecimalSeparator, err = oneRune("--decimal-separator", sep); err != nil {
					return err
				}
				res, err = receipt.CSV(rows, o)
			case "xlsx":
				res, err = receipt.XLSX(rows)
			case "datev":
				if fiscalYrs != "" {
					if datev.FiscalYearStart, err = time.Parse(time.DateOnly, fiscalYrs); err != nil {
						return fmt.Errorf("--fiscal-year-start %q: write YYYY-MM-DD", fiscalYrs)
					}
				}
				res, err = receipt.DATEV(rows, datev)
			default:
				return fmt.Errorf("--format must be csv, xlsx or datev, not %q", format)
			}
			if err != nil {
				return err
			}
			return writeOut(cmd, out, res)
		},
	}
	export.Flags().StringVar(&format, "format", "csv", "csv, xlsx or datev (Buchungsstapel, EXTF 700)")
	export.Flags().StringVar(&delim, "delimiter", ",", "csv: field delimiter (, ; | or a tab); ; for German Excel")
	export.Flags().StringVar(&sep, "decimal-separator", ".", "csv: decimal separator of amounts, . or ,")
	export.Flags().StringVar(&datev.Chart, "chart", "SKR03", "datev: chart of accounts, SKR03 or SKR04")
	export.Flags().IntVar(&datev.Consultant, "consultant", 1001, "datev: Beraternummer")
	export.Flags().IntVar(&datev.Client, "client", 1, "datev: Mandantennummer")
	export.Flags().StringVar(&fiscalYrs, "fiscal-year-start", "", "datev: first day of the fiscal year, YYYY-MM-DD (default 1 January)")
	export.Flags().StringVar(&datev.ContraAccount, "contra-account", "", "datev: contra account for every receipt (default Kasse or Bank by payment method)")
	outFlag(export, &out)
	cmd.AddCommand(extract, export)
	return cmd
}

// exportRows takes ReceiptData, or extraction results (the output of receipt extract), whose
// data it exports.
func exportRows(b []byte) ([]receipt.Data, error) {
	var results []struct {
		Data *receipt.Data `json:"data"`
	}
	if err := json.Unmarshal(b, &results); err == nil && len(results) > 0 && results[0].Data != nil {
		rows := make([]receipt.Data, 0, len(results))
		for _, r := range results {
			if r.Data != nil {
				rows = append(rows, *r.Data)
			}
		}
		return rows, nil
	}
	var rows []receipt.Data
	if err := json.Unmarshal(b, &rows); err != nil {
		return nil, err
	}
	return rows, nil
}

// oneRune reads a flag that takes one character.
func oneRune(flag, v string) (rune, error) {
	r := []rune(v)
	if len(r) != 1 {
		return 0, fmt.Errorf("%s %q: one character", flag, v)
	}
	return r[0], nil
}
