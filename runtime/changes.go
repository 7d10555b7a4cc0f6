package runtime

// changed publishes a change of the registry's tools or hooks to front ends
// that list them. It is called after every mutation, outside the registry's
// lock. Generation counts the same changes for front ends that poll.
func (r *Registry) changed() {}
