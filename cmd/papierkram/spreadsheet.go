package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/papierkram/papierkram/spreadsheet"
)

func spreadsheetCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "spreadsheet", Short: "Workbooks on local files: generate, fill, convert"}
	var out string

	generate := &cobra.Command{
		Use: "generate SPEC.json", Short: "Build an XLSX from a JSON description of sheets, columns and rows", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			b, err := readInput(args[0])
			if err != nil {
				return err
			}
			var w spreadsheet.Workbook
			if err := json.Unmarshal(b, &w); err != nil {
				return fmt.Errorf("%s: %w", args[0], err)
			}
			res, err := spreadsheet.Generate(w)
			if err != nil {
				return err
			}
			return writeOut(cmd, out, res)
		},
	}
	outFlag(generate, &out)

	var data string
	fill := &cobra.Command{
		Use: "fill TEMPLATE.xlsx --data DATA.json", Short: "Fill an XLSX template ({{name}}, {#items}…{/items} rows)", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			b, err := readInput(args[0])
			if err != nil {
				return err
			}
			db, err := readInput(data)
			if err != nil {
				return err
			}
			var v map[string]any
			if err := json.Unmarshal(db, &v); err != nil {
				return fmt.Errorf("--data: %w", err)
			}
			res, err := spreadsheet.Fill(b, v)
			if err != nil {
				return err
			}
			return writeOut(cmd, out, res)
		},
	}
	fill.Flags().StringVar(&data, "data", "", "JSON file with the values (required)")
	fill.MarkFlagRequired("data")
	outFlag(fill, &out)

	var to, sheet, delim, decimal string
	conv := &cobra.Command{
		Use: "convert FILE --to csv|json|xlsx", Short: "Convert one sheet to CSV or JSON, or CSV to XLSX", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			b, err := readInput(args[0])
			if err != nil {
				return err
			}
			o := spreadsheet.CSVOptions{Sheet: sheet}
			for _, f := range []struct {
				v   string
				dst *rune
			}{{delim, &o.Delimiter}, {decimal, &o.Decimal}} {
				if f.v != "" {
					if utf8.RuneCountInString(f.v) != 1 {
						return fmt.Errorf("%q is not one character", f.v)
					}
					*f.dst, _ = utf8.DecodeRuneInString(f.v)
				}
			}
			var res []byte
			switch strings.ToLower(to) {
			case "csv":
				res, err = spreadsheet.ToCSV(b, o)
			case "xlsx":
				res, err = spreadsheet.FromCSV(b, o)
			case "json":
				var rows []map[string]any
				if rows, err = spreadsheet.ToJSON(b, sheet); err == nil {
					res, err = json.MarshalIndent(rows, "", "  ")
					res = append(res, '\n')
				}
			default:
				return fmt.Errorf("--to must be csv, json or xlsx")
			}
			if err != nil {
				return err
			}
			return writeOut(cmd, out, res)
		},
	}
	conv.Flags().StringVar(&to, "to", "", "csv, json or xlsx (from CSV)")
	conv.Flags().StringVar(&sheet, "sheet", "", "sheet name or number from 1")
	conv.Flags().StringVar(&delim, "delimiter", "", "CSV delimiter (default ,)")
	conv.Flags().StringVar(&decimal, "decimal", "", "decimal separator of CSV numbers: . or ,")
	conv.MarkFlagRequired("to")
	outFlag(conv, &out)

	cmd.AddCommand(generate, fill, conv)
	return cmd
}
