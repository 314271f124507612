// Package chromium keeps headless Chromium warm under an engine.Supervisor and prints HTML
// to PDF in it. A job with JavaScript or a URL gets a fresh, isolated browser context (no
// cookies, cache or storage shared between jobs); plain HTML runs without scripts on the
// browser's first tab, its cookies cleared and its cache off, which leaves nothing for the
// next job to see. Every request the page makes passes an interceptor that allows only
// data: URLs and https: URLs the network policy allows; JavaScript is off unless the job
// asks for it.
package chromium
