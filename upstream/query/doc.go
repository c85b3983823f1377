// Package query implements the list query language of the REST API: the
// Mongo-style filter parameter, sort and fields projection.
//
// A Registry describes the fields of one resource (type, filterable,
// sortable, storage). ParseFilter turns a filter parameter into an Expr,
// validated against the registry; an Expr compiles to a parameterised SQL
// fragment for SQLite or PostgreSQL (Expr.SQL) and can also be evaluated in
// memory (Expr.Match) with the same result. ParseSort and OrderBy/Less do the
// same for sort; ParseFields and Projection for fields.
//
// All client mistakes are reported as *Error, which callers map to HTTP 400.
// No input makes the package panic; the sizes of inputs are bounded by the
// Max* constants.
package query
