module github.com/elastic/go-seccomp-bpf

go 1.23.0

require (
	github.com/elastic/go-ucfg v0.8.8
	github.com/stretchr/testify v1.10.0
	golang.org/x/net v0.41.0
	golang.org/x/sys v0.33.0
	gopkg.in/yaml.v2 v2.4.0
)

require (
	github.com/davecgh/go-spew v1.1.1 // indirect
	github.com/pmezard/go-difflib v1.0.0 // indirect
	gopkg.in/yaml.v3 v3.0.1 // indirect
)
