// Package tmpl is the one template language of Papierkram's document fillers (Word,
// spreadsheets): {{name}} values with dotted names into nested objects, {#name}…{/name}
// sections repeated per list item (or entered for an object, or kept when truthy) and
// {^name}…{/name} kept when the value is empty. Each filler applies it to its own format;
// this package resolves names and decides what a section repeats.
package tmpl
