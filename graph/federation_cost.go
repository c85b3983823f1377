package graph

// gqlgen's federation plugin names the cost function of Query._entities
// with a leading underscore, which Go does not export; these two reach it
// for the cost functions of package resolvers/limits (complexity.go there).

// SetEntitiesComplexity installs f as the cost of Query._entities: f gets
// the cost of the selection under one entity and the representations.
func SetEntitiesComplexity(c *ComplexityRoot, f func(child int, representations []map[string]any) int) {
	c.Query.__resolve_entities = f
}

// EntitiesComplexity returns the cost function of Query._entities, or nil.
func EntitiesComplexity(c *ComplexityRoot) func(child int, representations []map[string]any) int {
	return c.Query.__resolve_entities
}
