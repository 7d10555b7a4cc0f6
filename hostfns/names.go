package hostfns

// ABIVersion is the version of the contract in docs/abi.md. A guest built
// for another major version is refused by name.
const ABIVersion = "toolhost-abi 1"

// Namespace is the import module of every toolhost host function: Extism's
// namespace for host-provided user functions, so any Extism PDK can import
// them.
const Namespace = "extism:host/user"

// EnvNamespace is Extism's kernel namespace (alloc, input, output, config,
// http_request, log_info …). The plugin host implements the memory and
// input/output part; this package the functions that reach the outside
// world (http_*, log_*, get_log_level).
const EnvNamespace = "extism:host/env"

// The host function names, as guests import them.
const (
	NameAsk      = "ask"
	NameMetadata = "metadata"
	NameLog      = "log"
	NameStateGet = "state_get"
	NameStateSet = "state_set"
	NameSample   = "sample"
	NameElicit   = "elicit"
)

// The guest exports the host looks for. A module's main tool exports them
// bare; a named tool N exports N_description, N_schema and N_execute.
const (
	ExportDescription = "description"
	ExportSchema      = "schema"
	ExportExecute     = "execute"
	// ExportTraits is optional: JSON declaring what the tool is (its
	// permission, the arguments its patterns come from, its effects). See
	// docs/abi.md.
	ExportTraits = "traits"
)

// HTTPNamespace is where toolhost's guarded http_request lives. The plugin
// host redirects a guest's import of extism:host/env http_request here, so
// guests built with any Extism PDK get it without knowing.
const HTTPNamespace = "toolhost:host/http"

// NameHTTPRequest is Extism's HTTP function, which toolhost replaces.
const NameHTTPRequest = "http_request"

// The Extism kernel functions this package implements in EnvNamespace,
// besides http_request.
const (
	NameHTTPStatusCode = "http_status_code"
	NameHTTPHeaders    = "http_headers"
	NameGetLogLevel    = "get_log_level"
	NameLogTrace       = "log_trace"
	NameLogDebug       = "log_debug"
	NameLogInfo        = "log_info"
	NameLogWarn        = "log_warn"
	NameLogError       = "log_error"
)
