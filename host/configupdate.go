package host

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// ConfigMask is how Info shows a secret config value that is set. It is
// never a secret's value: an update that sends it back is refused.
const ConfigMask = "********"

// updateConfig applies update, the JSON object an admin sends to configure
// a plugin, to its stored configuration, and returns the result checked
// and normalised by ValidateConfig. The rules:
//
//   - a key sent with a value sets it;
//   - a key sent as null, or a string key sent as "", is unset: its
//     default applies, and a required key is refused;
//   - a secret key left out keeps its stored value, so an admin changes
//     other keys without typing the secrets again; any other key left out
//     is unset (the update stands for the whole configuration);
//   - a secret key sent as ConfigMask is refused: that is what the API
//     shows of a secret, not its value.
func updateConfig(schema map[string]ConfigField, stored, update []byte) ([]byte, error) {
	values, err := decodeConfig(update)
	if err != nil {
		return nil, fmt.Errorf("config must be a JSON object: %w", err)
	}
	sent := make(map[string]bool, len(values))
	for k, v := range values {
		sent[k] = true
		f, ok := schema[k]
		if !ok {
			return nil, fmt.Errorf("config key %q is not in the plugin's schema", k)
		}
		if f.Secret && v == ConfigMask {
			return nil, fmt.Errorf("config %s: %s is how a set secret is shown, not its value; leave %s out to keep it, or send its new value", k, ConfigMask, k)
		}
		if v == nil || (f.Type == "string" && v == "") {
			delete(values, k)
		}
	}
	old, err := decodeConfig(stored)
	if err != nil {
		return nil, fmt.Errorf("reading the stored config: %w", err)
	}
	for k, f := range schema {
		if !f.Secret || sent[k] {
			continue
		}
		if v, ok := old[k]; ok {
			values[k] = v
		}
	}
	raw, err := json.Marshal(values)
	if err != nil {
		return nil, fmt.Errorf("encoding config: %w", err)
	}
	return ValidateConfig(schema, raw)
}

// decodeConfig reads a JSON object of config values (numbers as
// json.Number, null as nil); empty input is an empty object.
func decodeConfig(raw []byte) (map[string]any, error) {
	values := map[string]any{}
	if len(bytes.TrimSpace(raw)) == 0 {
		return values, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&values); err != nil {
		return nil, err
	}
	if values == nil { // the JSON null
		values = map[string]any{}
	}
	return values, nil
}
