package sdk

// KVStore is the plugin's own key-value store, kept by the host in its
// database. Keys are at most 256 bytes, values at most 64 KiB.
type KVStore struct{}

// KV is the plugin's key-value store.
var KV KVStore

// Get returns the value of key and whether it exists.
func (KVStore) Get(key string) ([]byte, bool, error) {
	var out struct {
		Value []byte `json:"value"`
		Found bool   `json:"found"`
	}
	err := call(opKVGet, map[string]string{"key": key}, &out)
	return out.Value, out.Found, err
}

// Set stores value under key.
func (KVStore) Set(key string, value []byte) error {
	return call(opKVSet, map[string]any{"key": key, "value": value}, nil)
}

// Delete removes key; deleting a missing key is not an error.
func (KVStore) Delete(key string) error {
	return call(opKVDelete, map[string]string{"key": key}, nil)
}

// MaxListPage is the most keys one page of ListPage holds.
const MaxListPage = 1000

// List returns the first keys that start with prefix, in order, at most
// 1000; Keys reads them all.
func (s KVStore) List(prefix string) ([]string, error) { return s.ListPage(prefix, "", MaxListPage) }

// ListPage returns up to limit (at most MaxListPage) of the keys that
// start with prefix, in order, after the key after ("" for the first
// page). The next page starts after the last key of this one; an empty
// page is the end.
func (KVStore) ListPage(prefix, after string, limit int) ([]string, error) {
	var out []string
	return out, call(opKVList, map[string]any{"prefix": prefix, "after": after, "limit": limit}, &out)
}

// Keys calls fn with each key that starts with prefix, in order, a page
// at a time, until fn returns false or the keys end.
func (s KVStore) Keys(prefix string, fn func(key string) bool) error {
	after := ""
	for {
		page, err := s.ListPage(prefix, after, MaxListPage)
		if err != nil || len(page) == 0 {
			return err
		}
		for _, k := range page {
			if !fn(k) {
				return nil
			}
		}
		after = page[len(page)-1]
	}
}

// Logger writes to the plugin's log, which the admin reads with
// GET /v1/plugins/{name}/logs and which the server's log also carries.
type Logger struct{}

// Log is the plugin's logger.
var Log Logger

func (Logger) write(level, msg string) {
	_ = call(opLog, map[string]string{"level": level, "msg": msg}, nil)
}

// Debug logs at debug level.
func (l Logger) Debug(msg string) { l.write("debug", msg) }

// Info logs at info level.
func (l Logger) Info(msg string) { l.write("info", msg) }

// Warn logs at warn level.
func (l Logger) Warn(msg string) { l.write("warn", msg) }

// Error logs at error level.
func (l Logger) Error(msg string) { l.write("error", msg) }
