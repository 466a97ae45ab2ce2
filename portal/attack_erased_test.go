package portal_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"kycd/kyc"
)

// TestAttackErasedApplicantLink: once the applicant is erased, their
// resubmission link shows the cancelled page and takes no photo, no
// camera check and no submission over HTTP.
func TestAttackErasedApplicantLink(t *testing.T) {
	s := newStack(t)
	link, id := s.create(kyc.WorkflowStandard, "")
	redo := s.submitFirst(link, id, kyc.StepDocumentFront)
	r := s.api("GET", "/v1/kyc-requests/"+id, nil, http.StatusOK)
	s.api("DELETE", "/v1/applicants/"+r["applicantId"].(string), nil, http.StatusOK)

	res, err := http.Get(redo)
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode >= 500 || strings.Contains(string(page), "Mustermann") || strings.Contains(string(page), "blurred") ||
		strings.Contains(string(page), `type="file"`) {
		t.Errorf("the erased applicant's link page: %d\n%s", res.StatusCode, page)
	}
	img := photo(t, 800, 560)
	body, ct := multipartBody(t, doc("front", "passport"), img)
	if st, b := s.post(redo+"/captures", ct, body); st < 400 || st >= 500 {
		t.Errorf("a photo through the erased applicant's link: %d %s", st, b)
	}
	for _, p := range []string{"/liveness", "/document-sessions", "/submit"} {
		if st, b := s.post(redo+p, "", nil); st < 400 || st >= 500 {
			t.Errorf("POST %s through the erased applicant's link: %d %s", p, st, b)
		}
	}
	if st := s.status(id); st != kyc.KYCResubmissionRequested {
		t.Errorf("status: %s", st)
	}
}
