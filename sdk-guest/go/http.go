package tool

import "encoding/json"

// HTTPRequest is a request for Fetch.
type HTTPRequest struct {
	Method  string            `json:"method,omitempty"` // default GET
	URL     string            `json:"url"`
	Headers map[string]string `json:"headers,omitempty"`
	Body    []byte            `json:"-"`
}

// Fetch performs an HTTP request through the host and returns the status
// and body. The host reaches only the hosts the user allowed for this tool
// ("allowed_hosts"); a refused or failed request ends the call with an
// error naming the host and the setting that allows it (Extism's
// semantics), so check your configuration rather than the error.
func Fetch(req HTTPRequest) (status int, body []byte) {
	payload, _ := json.Marshal(req)
	return httpRequest(payload, req.Body)
}
