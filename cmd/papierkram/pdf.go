package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/papierkram/papierkram/fault"
	"github.com/papierkram/papierkram/internal/ops"
	"github.com/papierkram/papierkram/pdf"
	"github.com/papierkram/papierkram/pdf/pagerange"
	"github.com/papierkram/papierkram/pdf/pdfa"
	"github.com/papierkram/papierkram/pdf/preview"
)

// readDoc reads a local PDF and parses it with read: pdf.Read for a command that writes a
// document, pdf.ReadToRead for one that only reads it (as the server's handlers do).
func readDoc(path string, read func([]byte) (*pdf.Doc, error)) (*pdf.Doc, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fault.Wrap(fault.InvalidInput, err, "%v", err)
	}
	return read(b)
}

// readPages reads a local PDF, as readDoc, and a page specification for it.
func readPages(path string, read func([]byte) (*pdf.Doc, error), spec string) (*pdf.Doc, pagerange.Spec, error) {
	d, err := readDoc(path, read)
	if err != nil {
		return nil, nil, err
	}
	sp, err := pagerange.Parse(spec, d.PageCount())
	return d, sp, err
}

func writeOut(cmd *cobra.Command, out string, b []byte) error {
	if out == "" || out == "-" {
		_, err := cmd.OutOrStdout().Write(b)
		return err
	}
	return os.WriteFile(out, b, 0o644)
}

func pdfCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "pdf", Short: "PDF tools on local files"}
	cmd.AddCommand(splitCmd(), rotateCmd(), extractCmd(), mergeCmd(), metadataCmd(), setMetadataCmd(), pdfaCmd(), textCmd(), previewCmd(), formFieldsCmd(), fillFormCmd())
	// The toolbox of the operation layer, shared with the server.
	cmd.AddCommand(opCommand(ops.Compress), opCommand(ops.Encrypt), opCommand(ops.Decrypt),
		opCommand(ops.Unlock), opCommand(ops.Bookmarks), opCommand(ops.SetBookmarks),
		opCommand(ops.DeletePages), opCommand(ops.Insert), opCommand(ops.Reorder),
		opCommand(ops.Stamp), opCommand(ops.Watermark), opCommand(ops.PageNumbers),
		opCommand(ops.Flatten), opCommand(ops.ImagesToPDF), opCommand(ops.OCR), opCommand(ops.Validate))
	return cmd
}

func outFlag(c *cobra.Command, out *string) {
	c.Flags().StringVarP(out, "out", "o", "-", "output file (- for stdout)")
}

func pagesFlag(c *cobra.Command, pages *string) {
	c.Flags().StringVar(pages, "pages", "all", "page specification: all, 1, 1-3, 1,3,5, 1-3,7, 5-")
}

// Each subcommand has its own flag variables: cobra writes a flag's default into its
// variable when the flag is defined, so shared variables would take the last default.

func splitCmd() *cobra.Command {
	var out, pages string

	split := &cobra.Command{
		Use: "split FILE", Short: "Split into one PDF per range (all = every page); writes NAME-RANGE.pdf into --out-dir", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			d, sp, err := readPages(args[0], pdf.Read, pages)
			if err != nil {
				return err
			}
			parts, err := d.Split(sp)
			if err != nil {
				return err
			}
			stem := strings.TrimSuffix(filepath.Base(args[0]), ".pdf")
			for _, p := range parts {
				name := filepath.Join(out, fmt.Sprintf("%s-%s.pdf", stem, p.Range))
				if err := os.WriteFile(name, p.PDF, 0o644); err != nil {
					return err
				}
				fmt.Fprintln(cmd.OutOrStdout(), name)
			}
			return nil
		},
	}
	pagesFlag(split, &pages)
	split.Flags().StringVar(&out, "out-dir", ".", "directory for the parts")
	return split
}

func rotateCmd() *cobra.Command {
	var out, pages string
	var degrees int
	rotate := &cobra.Command{
		Use: "rotate FILE", Short: "Rotate pages clockwise", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			d, sp, err := readPages(args[0], pdf.Read, pages)
			if err != nil {
				return err
			}
			b, err := d.Rotate(degrees, sp)
			if err != nil {
				return err
			}
			return writeOut(cmd, out, b)
		},
	}
	rotate.Flags().IntVar(&degrees, "degrees", 90, "90, 180 or 270")
	pagesFlag(rotate, &pages)
	outFlag(rotate, &out)
	return rotate
}

func extractCmd() *cobra.Command {
	var out, pages string
	extract := &cobra.Command{
		Use: "extract FILE", Short: "Extract pages, in the order named, into one PDF", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			d, sp, err := readPages(args[0], pdf.Read, pages)
			if err != nil {
				return err
			}
			b, err := d.Extract(sp)
			if err != nil {
				return err
			}
			return writeOut(cmd, out, b)
		},
	}
	pagesFlag(extract, &pages)
	outFlag(extract, &out)
	return extract
}

func mergeCmd() *cobra.Command {
	var out string
	merge := &cobra.Command{
		Use: "merge FILE FILE...", Short: "Merge PDFs in order", Args: cobra.MinimumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			var docs [][]byte
			for _, a := range args {
				b, err := os.ReadFile(a)
				if err != nil {
					return err
				}
				docs = append(docs, b)
			}
			b, err := pdf.Merge(docs...)
			if err != nil {
				return err
			}
			return writeOut(cmd, out, b)
		},
	}
	outFlag(merge, &out)
	return merge
}

func metadataCmd() *cobra.Command {
	return &cobra.Command{
		Use: "metadata FILE", Short: "Print metadata as JSON", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			b, err := os.ReadFile(args[0])
			if err != nil {
				return err
			}
			info, err := pdf.Inspect(b)
			if err != nil {
				return err
			}
			enc := json.NewEncoder(cmd.OutOrStdout())
			enc.SetIndent("", "  ")
			return enc.Encode(info)
		},
	}
}

func setMetadataCmd() *cobra.Command {
	var out, title, author, subject, keywords, creator, producer string
	setMeta := &cobra.Command{
		Use: "set-metadata FILE", Short: "Set metadata (Info and XMP alike) as an incremental update", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			d, err := readDoc(args[0], pdf.Read)
			if err != nil {
				return err
			}
			ch := pdf.Changes{}
			for _, f := range []struct {
				name string
				v    *string
				dst  **string
			}{{"title", &title, &ch.Title}, {"author", &author, &ch.Author}, {"subject", &subject, &ch.Subject},
				{"keywords", &keywords, &ch.Keywords}, {"creator", &creator, &ch.Creator}, {"producer", &producer, &ch.Producer}} {
				if cmd.Flags().Changed(f.name) {
					*f.dst = f.v
				}
			}
			b, err := d.SetMetadata(ch, time.Now())
			if err != nil {
				return err
			}
			return writeOut(cmd, out, b)
		},
	}
	for name, v := range map[string]*string{"title": &title, "author": &author, "subject": &subject, "keywords": &keywords, "creator": &creator, "producer": &producer} {
		setMeta.Flags().StringVar(v, name, "", name)
	}
	outFlag(setMeta, &out)
	return setMeta
}

func pdfaCmd() *cobra.Command {
	var out, title, author string
	toPDFA := &cobra.Command{
		Use: "pdfa FILE", Short: "Convert to PDF/A-3b (Ghostscript)", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			b, err := os.ReadFile(args[0])
			if err != nil {
				return err
			}
			l := newLocal()
			defer l.close()
			res, err := pdfa.Convert(cmd.Context(), l.ghostscript, b, pdfa.Options{Title: title, Author: author})
			if err != nil {
				return err
			}
			return writeOut(cmd, out, res)
		},
	}
	toPDFA.Flags().StringVar(&title, "title", "", "title")
	toPDFA.Flags().StringVar(&author, "author", "", "author")
	outFlag(toPDFA, &out)
	return toPDFA
}

func textCmd() *cobra.Command {
	var pages string
	var layout bool
	text := &cobra.Command{
		Use: "text FILE", Short: "Print the text of pages (pdftotext)", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			d, sp, err := readPages(args[0], pdf.ReadToRead, pages)
			if err != nil {
				return err
			}
			l := newLocal()
			defer l.close()
			for _, r := range sp {
				texts, err := l.poppler.Text(cmd.Context(), d.Bytes(), r.From, r.To, layout)
				if err != nil {
					return err
				}
				fmt.Fprint(cmd.OutOrStdout(), strings.Join(texts, "\f"))
			}
			return nil
		},
	}
	pagesFlag(text, &pages)
	text.Flags().BoolVar(&layout, "layout", false, "keep the physical layout")
	return text
}

func previewCmd() *cobra.Command {
	var out, pages, format string
	var dpi int
	preview := &cobra.Command{
		Use: "preview FILE", Short: "Render one page as PNG or JPEG", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			data, err := readInput(args[0])
			if err != nil {
				return err
			}
			l := newLocal()
			defer l.close()
			imgs, err := preview.Render(cmd.Context(), l.poppler, data, preview.Options{Pages: pages, Format: format, DPI: dpi})
			if err != nil {
				return err
			}
			if len(imgs) != 1 {
				return fault.New(fault.InvalidPageSpec, "preview renders one page; --page names %d", len(imgs))
			}
			return writeOut(cmd, out, imgs[0].Data)
		},
	}
	preview.Flags().StringVar(&pages, "page", "1", "page number")
	preview.Flags().IntVar(&dpi, "dpi", 96, "resolution")
	preview.Flags().StringVar(&format, "format", "PNG", "PNG or JPEG")
	outFlag(preview, &out)
	return preview
}

func formFieldsCmd() *cobra.Command {
	return &cobra.Command{
		Use: "form-fields FILE", Short: "Print the AcroForm fields as JSON", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			d, err := readDoc(args[0], pdf.ReadToRead)
			if err != nil {
				return err
			}
			fields, err := d.FormFields()
			if err != nil {
				return err
			}
			return printJSON(cmd, fields)
		},
	}
}

func fillFormCmd() *cobra.Command {
	var out, values string
	var flatten bool
	fill := &cobra.Command{
		Use: "fill-form FILE --values VALUES.json", Short: "Fill AcroForm fields by full name (JSON object of values)", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			b, err := os.ReadFile(args[0])
			if err != nil {
				return err
			}
			vb, err := readInput(values)
			if err != nil {
				return err
			}
			var v map[string]any
			if err := json.Unmarshal(vb, &v); err != nil {
				return fmt.Errorf("--values: %w", err)
			}
			d, err := pdf.Read(b)
			if err != nil {
				return err
			}
			res, err := d.FillForm(v, flatten)
			if err != nil {
				return err
			}
			return writeOut(cmd, out, res)
		},
	}
	fill.Flags().StringVar(&values, "values", "", "JSON file with the field values (required)")
	fill.Flags().BoolVar(&flatten, "flatten", false, "make the fields page content and remove the form")
	fill.MarkFlagRequired("values")
	outFlag(fill, &out)
	return fill
}
