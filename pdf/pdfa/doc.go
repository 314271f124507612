// Package pdfa is the project's one step that makes a PDF into PDF/A-3b. The PDF tools,
// the HTML, Markdown and Office converters and ZUGFeRD embedding all call Convert.
package pdfa
