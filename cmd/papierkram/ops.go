package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/papierkram/papierkram/fault"
	"github.com/papierkram/papierkram/internal/ops"
)

// opCommand mounts an operation of the shared operation layer as a command: the first file
// part takes the positional arguments, every other part a flag (a path for a file part, the
// text itself or @path for a text part) except secrets, which come from the environment, and every option of P a flag built from the tags the
// server documents it with. The command only decodes, runs and encodes, as the handler does.
func opCommand[P any](o *ops.Operation[P]) *cobra.Command {
	var p P
	var out string
	var main ops.Part
	for _, pt := range o.Parts {
		if pt.File {
			main = pt
			break
		}
	}
	use := o.CommandName() + " FILE"
	args := cobra.ExactArgs(1)
	if main.Max > 1 {
		use, args = o.CommandName()+" FILE...", cobra.RangeArgs(1, main.Max)
	}
	cmd := &cobra.Command{Use: use, Short: o.Summary, Long: o.Summary + "\n\n" + o.Description(), Args: args}
	bindOptions(cmd.Flags(), reflect.ValueOf(&p).Elem())
	parts := map[string]*string{}
	for _, pt := range o.Parts {
		if pt.Name == main.Name {
			continue
		}
		if pt.Secret {
			// A flag would show the password to every user of the machine (ps) and keep it
			// in the shell history: secrets come from the environment, as certificate
			// passwords do.
			cmd.Long += fmt.Sprintf("\n\n%s: %s", secretEnv(pt.Name), pt.Doc)
			continue
		}
		v := new(string)
		parts[pt.Name] = v
		what := "text, or @file to read it from a file"
		if pt.File {
			what = "path of a file"
		}
		cmd.Flags().StringVar(v, kebab(pt.Name), "", fmt.Sprintf("%s (%s)", pt.Doc, what))
	}
	cmd.Flags().StringVarP(&out, "out", "o", "-", "output file (- for stdout)")
	cmd.RunE = func(cmd *cobra.Command, argv []string) error {
		if err := checkOptions(reflect.ValueOf(&p).Elem()); err != nil {
			return err
		}
		formatFromOut(cmd, reflect.ValueOf(&p).Elem(), out)
		in := &ops.Input{Files: map[string][]ops.File{}, Fields: map[string]string{}}
		for _, a := range argv {
			b, err := os.ReadFile(a)
			if err != nil {
				return fault.Wrap(fault.InvalidInput, err, "%v", err)
			}
			in.Files[main.Name] = append(in.Files[main.Name], ops.File{Name: filepath.Base(a), Data: b})
		}
		for _, pt := range o.Parts {
			if pt.Secret {
				if v := os.Getenv(secretEnv(pt.Name)); v != "" {
					in.Fields[pt.Name] = v
				} else if pt.Required {
					return fault.New(fault.InvalidInput, "%s is required", secretEnv(pt.Name))
				}
				continue
			}
			v := parts[pt.Name]
			if v == nil || *v == "" {
				if pt.Required && pt.Name != main.Name {
					return fault.New(fault.InvalidInput, "--%s is required", kebab(pt.Name))
				}
				continue
			}
			switch {
			case pt.File:
				b, err := os.ReadFile(*v)
				if err != nil {
					return fault.Wrap(fault.InvalidInput, err, "--%s: %v", kebab(pt.Name), err)
				}
				in.Files[pt.Name] = append(in.Files[pt.Name], ops.File{Name: filepath.Base(*v), Data: b})
			case strings.HasPrefix(*v, "@"):
				b, err := os.ReadFile((*v)[1:])
				if err != nil {
					return fault.Wrap(fault.InvalidInput, err, "--%s: %v", kebab(pt.Name), err)
				}
				in.Fields[pt.Name] = string(b)
			default:
				in.Fields[pt.Name] = *v
			}
		}
		l := newLocal()
		defer l.close()
		res, err := o.Run(cmd.Context(), l.ops(), in, &p)
		if err != nil {
			return err
		}
		for _, f := range res.Facts {
			fmt.Fprintf(cmd.ErrOrStderr(), "%s: %s\n", f[0], f[1])
		}
		data := res.Data
		if data == nil {
			b, err := json.MarshalIndent(res.Value, "", "  ")
			if err != nil {
				return err
			}
			data = append(b, '\n')
		}
		if err := writeOut(cmd, out, data); err != nil {
			return err
		}
		if res.Fails != "" {
			return errors.New(res.Fails) // exit status 1: the input failed the check
		}
		return nil
	}
	return cmd
}

// bindOptions defines a flag for every field of v with a query tag, typed as the field, with
// the default and documentation of its tags.
func bindOptions(fs *pflag.FlagSet, v reflect.Value) {
	t := v.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Anonymous {
			bindOptions(fs, v.Field(i))
			continue
		}
		name := flagName(f)
		if name == "" {
			continue
		}
		usage := f.Tag.Get("doc")
		if e := f.Tag.Get("enum"); e != "" {
			usage += " (" + strings.ReplaceAll(e, ",", ", ") + ")"
		}
		def := f.Tag.Get("default")
		switch p := v.Field(i).Addr().Interface().(type) {
		case *string:
			fs.StringVar(p, name, def, usage)
		case *bool:
			b, _ := strconv.ParseBool(def)
			fs.BoolVar(p, name, b, usage)
		case *int:
			n, _ := strconv.Atoi(def)
			fs.IntVar(p, name, n, usage)
		case *float64:
			x, _ := strconv.ParseFloat(def, 64)
			fs.Float64Var(p, name, x, usage)
		default:
			panic(fmt.Sprintf("opCommand: option %s has type %s, which has no flag", name, f.Type)) // caught by the command tests
		}
	}
}

// checkOptions applies the enum, minimum and maximum tags to the parsed flags, as huma does
// to the same fields as query parameters, so that a value the server refuses is refused here.
func checkOptions(v reflect.Value) error {
	t := v.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Anonymous {
			if err := checkOptions(v.Field(i)); err != nil {
				return err
			}
			continue
		}
		name := flagName(f)
		if name == "" {
			continue
		}
		val := v.Field(i)
		if e := f.Tag.Get("enum"); e != "" && val.Kind() == reflect.String && val.String() != "" {
			if !strings.Contains(","+e+",", ","+val.String()+",") {
				return fault.New(fault.InvalidInput, "--%s must be one of %s, not %q", name, strings.ReplaceAll(e, ",", ", "), val.String())
			}
		}
		var x float64
		switch val.Kind() {
		case reflect.Int:
			x = float64(val.Int())
		case reflect.Float64:
			x = val.Float()
		default:
			continue
		}
		if m := f.Tag.Get("minimum"); m != "" {
			if lo, _ := strconv.ParseFloat(m, 64); x < lo {
				return fault.New(fault.InvalidInput, "--%s must be at least %s", name, m)
			}
		}
		if m := f.Tag.Get("maximum"); m != "" {
			if hi, _ := strconv.ParseFloat(m, 64); x > hi {
				return fault.New(fault.InvalidInput, "--%s must be at most %s", name, m)
			}
		}
	}
	return nil
}

// flagName is the flag of an option field: its cli tag, else its query name in kebab-case;
// "" for a field that is no option.
func flagName(f reflect.StructField) string {
	if c := f.Tag.Get("cli"); c != "" {
		return c
	}
	name, _, _ := strings.Cut(f.Tag.Get("query"), ",")
	if name == "" {
		return ""
	}
	return kebab(name)
}

// formatFromOut lets the output file's extension choose an operation's format option when
// --format was not given: `-o invoice.pdf` asks for PDF.
func formatFromOut(cmd *cobra.Command, v reflect.Value, out string) {
	ext := strings.TrimPrefix(strings.ToLower(filepath.Ext(out)), ".")
	if ext == "" || cmd.Flags().Changed("format") {
		return
	}
	if f, ok := v.Type().FieldByName("Format"); ok && strings.Contains(","+f.Tag.Get("enum")+",", ","+ext+",") {
		v.FieldByName("Format").SetString(ext)
	}
}

// kebab is a flag's name for an API name: the command line's flags are kebab-case
// (userPassword -> user-password, offsetX -> offset-x), the API's names camelCase.
func kebab(s string) string {
	var b strings.Builder
	for i, r := range s {
		if 'A' <= r && r <= 'Z' {
			if i > 0 {
				b.WriteByte('-')
			}
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}

// secretEnv is the environment variable of a secret part: password -> PAPIERKRAM_PASSWORD,
// userPassword -> PAPIERKRAM_USER_PASSWORD.
func secretEnv(part string) string {
	return "PAPIERKRAM_" + strings.ToUpper(strings.ReplaceAll(kebab(part), "-", "_"))
}
