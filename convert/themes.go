package convert

// themes are print stylesheets for Markdown. Fonts are from the curated pool the setup
// installs (Liberation, DejaVu), so output looks the same on every server.
var themes = map[string]string{
	"default": base + `
body{font-family:'Liberation Serif','DejaVu Serif',serif;font-size:11pt;line-height:1.45;color:#1a1a1a}
h1,h2,h3,h4,h5,h6{font-family:'Liberation Sans','DejaVu Sans',sans-serif;color:#111;line-height:1.2;margin:1.2em 0 .4em}
h1{font-size:22pt;border-bottom:1.5pt solid #333;padding-bottom:4pt}h2{font-size:16pt}h3{font-size:13pt}
a{color:#0b4f8a;text-decoration:none}
blockquote{margin:1em 0;padding:.2em 1em;border-left:3pt solid #bbb;color:#444}
th{background:#f0f0f0}`,
	"technical": base + `
body{font-family:'Liberation Sans','DejaVu Sans',sans-serif;font-size:10pt;line-height:1.4;color:#222}
body{counter-reset:h2}h2{counter-reset:h3}
h2::before{counter-increment:h2;content:counter(h2) ". "}
h3::before{counter-increment:h3;content:counter(h2) "." counter(h3) " "}
h1{font-size:20pt;color:#0b3d66}h2{font-size:14pt;color:#0b3d66;border-bottom:.75pt solid #0b3d66}h3{font-size:11.5pt}
pre,code{font-family:'Liberation Mono','DejaVu Sans Mono',monospace;font-size:8.5pt}
pre{border:.75pt solid #ccc;border-left:3pt solid #0b3d66}
th{background:#0b3d66;color:#fff}tr:nth-child(even) td{background:#f5f7fa}`,
	"stationery": base + `
body{font-family:'Liberation Sans','DejaVu Sans',sans-serif;font-size:10.5pt;line-height:1.5;color:#111}
h1{font-size:14pt;margin:0 0 1em}h2{font-size:12pt}h3{font-size:11pt}
table{font-size:9.5pt}th{border-bottom:1pt solid #111;background:none}`,
	"custom": base,
}

// base is shared by every theme: page breaks, tables, code, task lists, footnotes.
const base = `
*{box-sizing:border-box}
@media print{h1,h2,h3,h4{break-after:avoid}pre,table,figure,img{break-inside:avoid}}
img{max-width:100%}
table{border-collapse:collapse;width:100%;margin:.8em 0}
th,td{border:.5pt solid #bbb;padding:3pt 6pt;text-align:left;vertical-align:top}
pre{padding:6pt 8pt;background:#f7f7f7;border-radius:3pt;white-space:pre-wrap;word-wrap:break-word}
code{font-family:'Liberation Mono','DejaVu Sans Mono',monospace;font-size:9pt}
li input[type=checkbox]{margin-right:.4em}ul:has(> li > input[type=checkbox]){list-style:none;padding-left:1em}
dt{font-weight:bold}dd{margin:0 0 .5em 1.5em}
.footnotes{font-size:9pt;border-top:.5pt solid #999;margin-top:2em}
`
