package decision

import (
	"maps"

	"kycd/kyc"
)

// Readings finds, in a request's processingResult, what the
// engine read from each document capture (the document_data signal's
// reads[].reading: raw MRZ lines or barcode text, their confidence and
// the fields taken from them), by capture id. A request not yet decided
// has none.
func Readings(processing map[string]any) map[string]map[string]any {
	out := map[string]map[string]any{}
	signals, _ := processing["signals"].([]any)
	for _, s := range signals {
		sig, _ := s.(map[string]any)
		if sig["name"] != SigDocumentData {
			continue
		}
		data, _ := sig["data"].(map[string]any)
		reads, _ := data["reads"].([]any)
		for _, r := range reads {
			read, _ := r.(map[string]any)
			id, _ := read["captureId"].(string)
			if reading, ok := read["reading"].(map[string]any); ok && id != "" {
				out[id] = reading
			}
		}
	}
	return out
}

// JoinAddress adds the address the engine read (kept sealed, apart from
// processingResult; nil: none) to its image's reading in readings, as
// "address". The reading is replaced by a copy: the maps Readings returns
// are processingResult's own.
func JoinAddress(readings map[string]map[string]any, addr *kyc.DocumentAddress) {
	if addr == nil || readings[addr.CaptureID] == nil {
		return
	}
	m := maps.Clone(readings[addr.CaptureID])
	m["address"] = addr.Reading()
	readings[addr.CaptureID] = m
}
