package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"kycd/kyc"
)

// TestPersonalDataOneRule: a report prints personal data by one rule, the
// organization's. The KYC PDF printed the document number whole, with the
// whole MRZ, and a few lines below as ****0T47: a full report now prints
// it whole wherever it appears (the number read from the image, which
// kycd records masked, as the typed number it matched); a masked report
// prints no part of it but the last four characters, in the PDF and in
// report.json, nor the MRZ, the document image, the e-mail or the phone.
func TestPersonalDataOneRule(t *testing.T) {
	const number, mrzLine, email, phone, ip = "C01X00T47", "P<D<<MUSTERMANN<<ERIKA", "anna.schmidt@example.org", "+49 30 1234567", "203.0.113.24"
	for _, mode := range []kyc.PersonalData{kyc.PersonalDataFull, kyc.PersonalDataMasked} {
		t.Run(string(mode), func(t *testing.T) {
			rep := typicalKYC(t)
			if mode == kyc.PersonalDataMasked {
				rep.maskPersonalData()
				if err := rep.seal(); err != nil {
					t.Fatal(err)
				}
			}
			var buf bytes.Buffer
			if err := WriteKYCPDF(&buf, rep); err != nil {
				t.Fatal(err)
			}
			path := savePDF(t, "kyc-personal-"+string(mode), buf.Bytes())
			js, err := json.Marshal(rep)
			if err != nil {
				t.Fatal(err)
			}
			if !havePoppler(t) {
				return
			}
			flow := pdfFlow(t, path)
			full := mode == kyc.PersonalDataFull
			for _, whole := range []string{number, mrzLine, email, phone, ip} {
				if got := strings.Contains(flow, whole); got != full {
					t.Errorf("PDF prints %q: %v, want %v", whole, got, full)
				}
				enc, _ := json.Marshal(whole) // as report.json writes it (< escaped)
				if got := strings.Contains(string(js), strings.Trim(string(enc), `"`)); got != full {
					t.Errorf("report.json carries %q: %v, want %v", whole, got, full)
				}
			}
			if got := strings.Contains(flow, "*****0T47"); got == full {
				t.Errorf("PDF prints the masked number: %v, want %v (one rule per report)", got, !full)
			}
			if full {
				mustContain(t, flow, "Document number C01X00T47 (the same as the number typed)",
					"Compared: documentNumber match: document C01X00T47, applicant C01X00T47", "Personal data full")
			} else {
				mustContain(t, flow, "Personal data masked", "MRZ left out", "a***@example.org", "+** ** ****567", "203.0.113.*",
					"Image not shown: the organization's reports mask personal data")
				if !strings.Contains(string(js), `"personalData":"masked"`) {
					t.Errorf("report.json does not say it is masked")
				}
			}
		})
	}
}

func TestMasks(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{kyc.MaskNumber("L898902C3"), "*****02C3"}, {kyc.MaskNumber("AB1"), "***"}, {kyc.MaskNumber("ΑΒΓΔΕΖ"), "**ΓΔΕΖ"},
		{kyc.MaskEmail("jane@bank.example"), "j***@bank.example"}, {kyc.MaskEmail("nobody"), "******"},
		{kyc.MaskPhone("+49 30 1234567"), "+** ** ****567"}, {kyc.MaskPhone("12"), "12"},
		{kyc.MaskIP("203.0.113.24"), "203.0.113.*"}, {kyc.MaskIP("2001:db8:1:2::7"), "2001:db8:1:*"},
		{kyc.MaskIP("::ffff:192.0.2.9"), "192.0.2.*"}, {kyc.MaskIP("nope"), "****"},
	} {
		if tt.in != tt.want {
			t.Errorf("got %q, want %q", tt.in, tt.want)
		}
	}
}
