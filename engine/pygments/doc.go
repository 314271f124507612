// Package pygments colours source code with Pygments (Debian's python3-pygments), one
// short-lived Python process per document under an engine.Supervisor: the code blocks of a
// Markdown document go in together and come back as HTML spans with Pygments' token
// classes.
//
// Highlighting runs outside the server because its lexers are regular expressions over the
// caller's text, some of them backtracking: a process can be killed when a block makes one
// spin, a goroutine cannot. It also keeps the lexer registry out of every process start
// (#24): chroma, the Go port of Pygments, builds its registry of 250 lexers in a package
// initialiser, a third of the start of a one-file CLI command.
package pygments
