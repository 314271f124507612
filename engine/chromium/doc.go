// Package chromium keeps headless Chromium warm under an engine.Supervisor and prints HTML
// to PDF in it. Every job gets a fresh, isolated browser context (no cookies, cache or
// storage shared between jobs); every request the page makes passes an interceptor that
// allows only data: URLs and https: URLs the network policy allows; JavaScript is off unless
// the job asks for it.
package chromium
