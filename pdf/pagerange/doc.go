// Package pagerange parses page specifications, the one way for the whole project:
// "all", "1", "1-3", "1,3,5", "1-3,7", and "5-" (page 5 to the last).
//
// A specification is a list of ranges in the order written. Splitting makes one part per
// range; selecting pages takes them all in order. "all" is every page as its own range, so
// splitting "all" gives one part per page.
package pagerange
