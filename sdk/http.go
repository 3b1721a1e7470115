package sdk

import "strings"

// HTTPClient reaches the outside world through the host, which allows only
// the hosts the plugin declared (http:outbound:<host>) and the admin
// granted, re-checks every redirect, refuses private addresses and caps the
// response size and time.
type HTTPClient struct{}

// HTTP is the plugin's HTTP client.
var HTTP HTTPClient

// OutboundRequest is an outbound HTTP request.
type OutboundRequest struct {
	Method  string            `json:"method"`
	URL     string            `json:"url"`
	Headers map[string]string `json:"headers,omitempty"`
	Body    []byte            `json:"body,omitempty"`
}

// OutboundResponse is the answer to an outbound request.
type OutboundResponse struct {
	Status  int               `json:"status"`
	Headers map[string]string `json:"headers,omitempty"`
	Body    []byte            `json:"body,omitempty"`
}

// Do sends req.
func (HTTPClient) Do(req OutboundRequest) (*OutboundResponse, error) {
	if req.Method == "" {
		req.Method = "GET"
	}
	resp := new(OutboundResponse)
	return resp, call(opHTTP, req, resp)
}

// Get fetches url.
func (c HTTPClient) Get(url string) (*OutboundResponse, error) {
	return c.Do(OutboundRequest{Method: "GET", URL: url})
}

// Post sends body to url with the given content type.
func (c HTTPClient) Post(url, contentType string, body []byte) (*OutboundResponse, error) {
	return c.Do(OutboundRequest{Method: "POST", URL: url, Headers: map[string]string{"Content-Type": contentType}, Body: body})
}

// header returns a request header regardless of case.
func (r *Request) Header(name string) string {
	for k, v := range r.Headers {
		if strings.EqualFold(k, name) {
			return v
		}
	}
	return ""
}
