package main

import (
	"encoding/json"

	"github.com/spf13/cobra"

	"github.com/papierkram/papierkram/convert/docx"
	"github.com/papierkram/papierkram/convert/xlsx"
	"github.com/papierkram/papierkram/fault"
)

func convertCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "convert", Short: "Convert local files: office documents to PDF, ZUGFeRD to XRechnung"}
	var out, vars, track string
	var pdfa, hideComments bool
	word := &cobra.Command{
		Use: "word FILE", Short: "Word (.docx, .docm, .doc, .odt, .rtf) to PDF, optionally filled as a template", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			b, err := readInput(args[0])
			if err != nil {
				return err
			}
			req := docx.Request{Document: b, Filename: args[0], PDFA: pdfa, TrackChanges: track, HideComments: hideComments}
			if vars != "" {
				vb, err := readInput(vars)
				if err != nil {
					return err
				}
				if err := json.Unmarshal(vb, &req.Variables); err != nil {
					return fault.Wrap(fault.InvalidInput, err, "%s: %v", vars, err)
				}
			}
			l := newLocal()
			defer l.close()
			o, err := l.Office()
			if err != nil {
				return err
			}
			pdf, err := docx.ToPDF(cmd.Context(), o, req)
			if err != nil {
				return err
			}
			return writeOut(cmd, out, pdf)
		},
	}
	word.Flags().StringVar(&vars, "vars", "", "JSON file of template variables")
	word.Flags().StringVar(&track, "track-changes", "", "visualize: print tracked changes; default: accept them")
	word.Flags().BoolVar(&hideComments, "hide-comments", false, "leave comments out")
	word.Flags().BoolVar(&pdfa, "pdfa", false, "PDF/A-3b output")
	outFlag(word, &out)

	var xout, orientation, printArea, repeatRows, repeatCols, header, footer string
	var sheets []string
	var fit, grid, bw, xpdfa bool
	var scaling int
	excel := &cobra.Command{
		Use: "excel FILE", Short: "Excel (.xlsx, .xlsm, .ods) to PDF with print options", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			b, err := readInput(args[0])
			if err != nil {
				return err
			}
			req := xlsx.Request{Document: b, Filename: args[0], PDFA: xpdfa, Options: xlsx.Options{
				Orientation: orientation, FitToPage: fit, Scaling: scaling, PrintArea: printArea, RepeatRows: repeatRows,
				RepeatColumns: repeatCols, Gridlines: grid, BlackAndWhite: bw, Header: header, Footer: footer, Sheets: sheets,
			}}
			l := newLocal()
			defer l.close()
			o, err := l.Office()
			if err != nil {
				return err
			}
			pdf, err := xlsx.ToPDF(cmd.Context(), o, req)
			if err != nil {
				return err
			}
			return writeOut(cmd, xout, pdf)
		},
	}
	f := excel.Flags()
	f.StringVar(&orientation, "orientation", "", "portrait or landscape")
	f.BoolVar(&fit, "fit-to-page", false, "scale to the page width")
	f.IntVar(&scaling, "scaling", 0, "scale in percent (10-400)")
	f.StringVar(&printArea, "print-area", "", "cell range, A1:D20 or Sheet1!A1:D20")
	f.StringVar(&repeatRows, "repeat-rows", "", "rows on every page, 1:2")
	f.StringVar(&repeatCols, "repeat-columns", "", "columns on every page, A:B")
	f.BoolVar(&grid, "gridlines", false, "print gridlines")
	f.BoolVar(&bw, "black-and-white", false, "print in black and white")
	f.StringVar(&header, "header", "", "header with codes &L &C &R &B &D &P &N &F &A")
	f.StringVar(&footer, "footer", "", "footer with the same codes")
	f.StringSliceVar(&sheets, "sheets", nil, "sheets to print (default: the visible ones)")
	f.BoolVar(&xpdfa, "pdfa", false, "PDF/A-3b output")
	outFlag(excel, &xout)

	cmd.AddCommand(word, excel, zugferdToXRechnungCmd())
	return cmd
}
