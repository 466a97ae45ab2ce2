package report

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"image"
	"os"
	"strings"
	"testing"
	"time"

	"kycd/internal/realdata"
	"kycd/kyc"
)

// Reports for the PDF tests are built directly, as BuildKYC and BuildAML
// would fill them, so the tests need no store.

func ptr[T any](v T) *T { return &v }

var t0 = time.Date(2026, 3, 2, 9, 15, 0, 0, time.UTC)

func at(d time.Duration) string { return kyc.FormatTime(t0.Add(d)) }

// capture reads a real image from the shared data folder and describes it
// as the store would.
func capture(t testing.TB, rep *KYCReport, id, kind string, side *string, rel string) {
	t.Helper()
	data, err := os.ReadFile(realdata.Path(t, rel))
	if err != nil {
		t.Fatal(err)
	}
	cfg, format, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("%s: %v", rel, err)
	}
	sum := sha256.Sum256(data)
	c := CapturePart{ID: id, Kind: kind, Side: side, ContentType: "image/" + format, Width: cfg.Width, Height: cfg.Height,
		Size: len(data), SHA256: hex.EncodeToString(sum[:]), CapturedAt: at(4 * time.Minute), Method: "camera",
		Metadata: map[string]any{"userAgent": "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1",
			"ip": "203.0.113.24", "camera": "rear", "torch": false, "source": rel}}
	if kind == "document" {
		c.DocumentType, c.Country = ptr("passport"), ptr("DE")
	}
	rep.Captures = append(rep.Captures, c)
	rep.Thumbnails[id] = data
}

// match is a match record in the shape the screener stores (features as
// decoded JSON).
func match(i int, name, alias string, score float64) kyc.MatchRecord {
	return kyc.MatchRecord{
		EntityID: fmt.Sprintf("NK-%05d", 1000+i), ListVersionID: "lv_pep_2026_02_27", Source: "opensanctions_peps",
		Provider: "OpenSanctions", Schema: "Person", Score: score, MatchedName: alias, MatchedNameType: "alias",
		Names: []string{name, alias}, DatesOfBirth: []string{"1971-05-0" + fmt.Sprint(1+i%9)}, Countries: []string{"DE", "AT"},
		Programs: []string{"Member of the Bundestag"}, Reference: ptr(fmt.Sprintf("Q%d", 4000+i)),
		Reason: ptr("Politically exposed person: member of a national parliament since 2017."),
		Features: map[string]any{"nameScore": score, "queryCoverage": 1.0, "nameCoverage": 0.8, "conflict": false,
			"tokens": []any{map[string]any{"query": "anna", "listed": "anna", "similarity": 1.0},
				map[string]any{"query": "schmidt", "listed": "schmitt", "similarity": 0.91}},
			"dob": "exact", "dobFactor": 1.0, "country": "match", "countryFactor": 1.05},
	}
}

func listRef(kind string) []kyc.ListVersionRef {
	return []kyc.ListVersionRef{{ID: "lv_" + kind + "_2026_02_27", Source: "opensanctions_" + kind, Provider: "OpenSanctions",
		EntityCount: 48213, ImportedAt: "2026-02-27T06:00:00.000Z"}}
}

// typicalKYC is a request a reviewer approved: a passport and two
// selfies, a PEP hit among three screenings, signals and reasons, eight
// events and one reviewer note.
func typicalKYC(t testing.TB) *KYCReport {
	t.Helper()
	rep := &KYCReport{
		SchemaVersion: KYCSchemaVersion, GeneratedAt: at(2 * time.Hour), PersonalData: kyc.PersonalDataFull,
		Organization: Organization{ID: "org_01JNX8Q4M2", Name: "Nordbank Payments GmbH"}, Environment: "live",
		Request: RequestPart{ID: "01JNXA7K3D5F8G2H4J6K8M0P2Q", PublicID: "kyc_7QK2M9XD", Status: "approved", Decision: "approved",
			DecisionReason: ptr("PEP match reviewed: a different person (date of birth differs)."), WorkflowType: "standard",
			ExternalRef: ptr("customer-88412"), CreatedAt: at(0), SubmittedAt: ptr(at(6 * time.Minute)),
			DecidedAt: ptr(at(90 * time.Minute)), PortalExpiresAt: at(72 * time.Hour)},
		Applicant: ApplicantPart{ID: "01JNXA7K0A1B2C3D4E5F6G7H8J", PublicID: "app_3RT8ZC1V", FirstName: "Anna", LastName: "Schmidt",
			Email: ptr("anna.schmidt@example.org"), Phone: ptr("+49 30 1234567"), DOB: ptr("1990-08-12"), Country: ptr("DE")},
		Automation: AutomationPart{Decision: ptr("review"), Confidence: ptr(0.82), RiskScore: ptr(35.0), Engine: ptr("kycd-decision"),
			EngineVersion: ptr("2026.3.1"), PolicyVersion: ptr("policy-7")},
		DocumentData: &kyc.DocumentData{DocumentType: "passport", IssuingCountry: "DE", DocumentNumber: "C01X00T47", ExpiryDate: "2031-10-31",
			MRZ: "P<D<<MUSTERMANN<<ERIKA<<<<<<<<<<<<<<<<<<<<<<\nC01X00T478D<<6408125F2702283<<<<<<<<<<<<<<<4"},
		Thumbnails:    map[string][]byte{},
		Timeline:      []TimelinePart{},
		ReviewerNotes: []ReviewerNote{},
	}
	capture(t, rep, "cap_01JNXA9F0DOC", "document", ptr("front"), "images/doc_td3_deu_passport_specimen.jpg")
	capture(t, rep, "cap_01JNXA9F1SLF", "selfie", nil, "images/face_biden_02_portrait.jpg")
	capture(t, rep, "cap_01JNXA9F2LIV", "liveness", nil, "images/face_biden_01_fulllength.jpg")

	rep.LivenessSessions = []LivenessPart{
		{ID: "lvs_01JNXA8Z0FAILED", Status: "failed", Challenge: []string{"turn_left", "look_up"}, OpenedAt: at(4 * time.Minute),
			Deadline: at(4*time.Minute + 20*time.Second), ReceivedAt: ptr(at(4*time.Minute + 9*time.Second)),
			Verdict: json.RawMessage(`{"passed":false,"selfie":0,"checks":[` +
				`{"name":"frames","passed":true,"detail":"6 frames over 3 steps."},` +
				`{"name":"head_movement","passed":false,"code":"LIVENESS_MOVEMENT_NOT_SEEN","detail":"Step 1 (turn_left): the head moved 2° that way; 20° is needed."},` +
				`{"name":"distinct_frames","passed":false,"code":"LIVENESS_DUPLICATE_FRAMES","detail":"Frames 1 and 2 are the same picture."},` +
				`{"name":"screen_light","passed":false,"code":"LIVENESS_LIGHT_MISMATCH","detail":"Step 1 (#ff0000): the face moved 0.001 toward the screen's colour beyond the background."}],` +
				`"light":{"asked":["#ffffff","#ff0000","#00ffff"],"shown":["#ffffff","#ff0000","#00ffff"],"measured":6,"frames":6,"steps":[` +
				`{"step":1,"light":"#ff0000","frames":2,"faceShift":0.002,"backgroundShift":0.001,"shift":0.001,"cos":0.2,"passed":false},` +
				`{"step":2,"light":"#00ffff","frames":2,"faceShift":0.151,"backgroundShift":0.0,"shift":0.151,"cos":0.99,"passed":true}]},` +
				`"steps":[{"step":0,"move":"look_straight","frames":2,"bestFrame":0,"measured":1.5,"required":20,"unit":"degrees","passed":true},` +
				`{"step":1,"move":"turn_left","frames":2,"bestFrame":2,"measured":2.1,"required":20,"unit":"degrees","passed":false},` +
				`{"step":2,"move":"look_up","frames":2,"bestFrame":4,"measured":0.4,"required":18,"unit":"degrees","passed":false}],` +
				`"frames":[{"step":0,"faces":1,"yaw":1.5,"pitch":3,"roll":0,"scale":0.7,"distance":0}]}`),
			Frames: []LivenessFramePart{{ID: "lvf_01JNXA8Z1FRAME0", Seq: 0, Step: 0, ContentType: "image/jpeg", Width: 640, Height: 480,
				Size: 41234, SHA256: strings.Repeat("ab", 32)}}},
	}
	rep.Screenings = []kyc.ListResult{
		{CheckType: "sanctions", Provider: "OpenSanctions", Status: kyc.ListClear, RiskLevel: kyc.Risk(kyc.RiskLow), Matches: []kyc.MatchRecord{}, Lists: listRef("sanctions")},
		{CheckType: "pep", Provider: "OpenSanctions", Status: kyc.ListHit, RiskLevel: kyc.Risk(kyc.RiskMedium), MatchCount: 1,
			Matches: []kyc.MatchRecord{match(0, "Anna Maria Schmitt", "Anna Schmitt", 0.912)}, Lists: listRef("pep")},
		{CheckType: "adverse_media", Provider: "OpenSanctions", Status: kyc.ListClear, RiskLevel: kyc.Risk(kyc.RiskLow), Matches: []kyc.MatchRecord{}, Lists: listRef("crime")},
	}
	signal := func(name, capID, status string, score float64, detail string, codes ...string) any {
		var findings []any
		for _, c := range codes {
			findings = append(findings, map[string]any{"code": c, "message": "Finding " + c + "."})
		}
		return map[string]any{"name": name, "captureId": capID, "status": status, "score": score, "detail": detail,
			"findings": findings, "data": map[string]any{"blurVariance": 412.5}}
	}
	rep.Signals = []any{
		signal("image_quality", "cap_01JNXA9F0DOC", "pass", 0.97, "Sharp, well lit, document fills 71% of the frame."),
		signal("document_mrz", "cap_01JNXA9F0DOC", "pass", 1, "MRZ read; all check digits valid."),
		signal("face_match", "cap_01JNXA9F1SLF", "pass", 0.88, "Selfie matches the document portrait."),
		signal("aml_screening", "", "warn", 0.6, "One PEP match above the threshold.", "PEP_MATCH"),
		signal("capture_integrity", "", "pass", 1, "Captured live in the portal."),
		map[string]any{"name": "document_data", "captureId": "", "status": "pass", "score": 1.0, "findings": []any{},
			"detail": "The document's machine-readable zone was read from its image; it is valid and its check digits verify.",
			"data": map[string]any{"source": "document_image", "captureId": "cap_01JNXA9F0DOC", "mrz": map[string]any{
				"surname": "MUSTERMANN", "givenNames": "ERIKA", "birthDate": "1964-08-12", "documentNumber": "*****0T47",
				"nationality": "D", "issuingState": "D", "expiryDate": "2031-10-31", "checkDigitsValid": true}}},
		map[string]any{"name": "data_consistency", "captureId": "", "status": "pass", "score": 1.0, "findings": []any{},
			"detail": "Compared with the MRZ read from the document: name match, dateOfBirth match.",
			"data": map[string]any{"comparisons": []any{
				map[string]any{"field": "name", "document": "ERIKA MUSTERMANN", "applicant": "Erika Mustermann", "result": "match", "detail": "Similarity 1.00 (as written); 0.82 needed."},
				map[string]any{"field": "dateOfBirth", "document": "1964-08-12", "applicant": "1964-08-12", "result": "match"},
				map[string]any{"field": "documentNumber", "document": "*****0T47", "applicant": "*****0T47", "result": "match", "detail": "The number the applicant typed."}}}},
	}
	rep.Reasons = []any{
		map[string]any{"code": "PEP_MATCH", "message": "Possible politically exposed person: Anna Maria Schmitt (0.91).",
			"signal": "aml_screening", "action": "review", "weight": 35.0},
	}
	events := []struct{ typ, from, to, actor, reason string }{
		{string(kyc.EventKYCCreated), "", "link_generated", "api_key", ""},
		{string(kyc.EventKYCPortalLinkReady), "link_generated", "link_generated", "api_key", ""},
		{kyc.TimelineOpened, "link_generated", "link_generated", "applicant", ""},
		{string(kyc.EventKYCSubmitted), "link_generated", "submitted", "applicant", ""},
		{string(kyc.EventKYCProcessing), "submitted", "processing", "system", ""},
		{string(kyc.EventKYCAwaitingReview), "processing", "awaiting_review", "system", "PEP match needs a person."},
		{kyc.TimelineFirstReview, "awaiting_review", "awaiting_review", "reviewer", ""},
		{string(kyc.EventKYCApproved), "awaiting_review", "approved", "reviewer", "Different person: date of birth 1971 vs 1990."},
	}
	for i, e := range events {
		tp := TimelinePart{Type: e.typ, ToStatus: e.to, Decision: "pending", ActorType: e.actor, At: at(time.Duration(i*11) * time.Minute)}
		if e.from != "" {
			tp.FromStatus = ptr(e.from)
		}
		if e.actor == "reviewer" {
			tp.ActorID, tp.Actor = ptr("usr_compliance_jdoe"), jdoe
		}
		if e.reason != "" {
			tp.Reason = ptr(e.reason)
		}
		rep.Timeline = append(rep.Timeline, tp)
	}
	rep.Timeline[7].Decision = "approved"
	rep.ReviewerNotes = append(rep.ReviewerNotes, ReviewerNote{Reviewer: "usr_compliance_jdoe", By: jdoe, Decision: "approved",
		Note: "Different person: date of birth 1971 vs 1990.", ReasonCode: ptr("PEP_FALSE_POSITIVE"), At: at(77 * time.Minute)})
	if err := rep.seal(); err != nil {
		t.Fatal(err)
	}
	return rep
}

// jdoe is the reviewer of the typical request, as BuildKYC names her.
var jdoe = &Person{Type: "user", ID: "usr_compliance_jdoe", Name: "Johanna Doe", Email: ptr("j.doe@nordbank.example")}

// eventTypes are cycled through by the long timeline.
var eventTypes = []string{kyc.TimelineOpened, string(kyc.EventKYCPortalLinkReady), string(kyc.EventKYCSubmitted),
	string(kyc.EventKYCProcessing), string(kyc.EventKYCAwaitingReview), string(kyc.EventKYCExpired), kyc.TimelineFirstReview}

// longKYC is the typical request with 200 events, 50 matches and a
// reviewer note longer than a page.
func longKYC(t testing.TB) *KYCReport {
	t.Helper()
	rep := typicalKYC(t)
	rep.Timeline = rep.Timeline[:0]
	for i := range 200 {
		rep.Timeline = append(rep.Timeline, TimelinePart{Type: eventTypes[i%len(eventTypes)], FromStatus: ptr("link_generated"),
			ToStatus: "expired", Decision: "pending", ActorType: "system", Reason: ptr(fmt.Sprintf("Automatic step %03d of the retry schedule.", i)),
			At: kyc.FormatTime(t0.Add(time.Duration(i) * 37 * time.Minute))})
	}
	pep := &rep.Screenings[1]
	pep.Matches = pep.Matches[:0]
	for i := range 50 {
		pep.Matches = append(pep.Matches, match(i, fmt.Sprintf("Anna Schmitt-Nummer%02d", i), fmt.Sprintf("A. Schmitt %02d", i), 0.99-float64(i)/200))
	}
	pep.MatchCount = 50
	var note bytes.Buffer
	for i := range 160 {
		fmt.Fprintf(&note, "Checked listing L%03d against the applicant's documents and found no link. ", i)
	}
	rep.ReviewerNotes[0].Note = note.String()
	if err := rep.seal(); err != nil {
		t.Fatal(err)
	}
	return rep
}

// Names in the scripts the fonts print, and one they do not.
const (
	nameLatin    = "Zoë Łukasiewicz"
	nameCyrillic = "Дмитрий Иванов"
	nameGreek    = "Ἀλέξανδρος"
	nameArabic   = "محمد عبد الله"
)

// scriptsKYC is a sandbox request whose applicant, match and reviewer
// names are in Latin with diacritics, Cyrillic, polytonic Greek and Arabic.
func scriptsKYC(t testing.TB) *KYCReport {
	t.Helper()
	rep := typicalKYC(t)
	rep.Environment, rep.Sandbox = "sandbox", true
	rep.Applicant.FirstName, rep.Applicant.LastName = "Zoë", "Łukasiewicz"
	m := match(0, nameCyrillic, nameGreek, 0.873)
	m.Names = append(m.Names, nameArabic)
	rep.Screenings[1].Matches = []kyc.MatchRecord{m}
	// A decision through the API, with the reviewer's name sent.
	rep.ReviewerNotes[0].Reviewer = nameCyrillic + " (key_01JNXKEYBACKOFFICE)"
	rep.ReviewerNotes[0].By = &Person{Type: "api_key", ID: "key_01JNXKEYBACKOFFICE", Name: nameCyrillic, Key: ptr("Back office")}
	rep.ReviewerNotes[0].Note = "Spoke with " + nameLatin + "; the listed " + nameGreek + " (" + nameArabic + ") is someone else."
	if err := rep.seal(); err != nil {
		t.Fatal(err)
	}
	return rep
}

// amlWithHistory is a monitored check with a PEP and a sanctions hit and
// 30 screenings of history.
func amlWithHistory() *AMLReport {
	risk := kyc.RiskHigh
	c := &kyc.AMLCheck{ID: "01JNYB2C3D4E5F6G7H8J9K0M1N", PublicID: "aml_5TV8QW2R", OrganizationID: "org_01JNX8Q4M2", Environment: kyc.Live,
		FirstName: "Anna", LastName: "Schmidt", DOB: ptr("1971-05-03"), Country: ptr("DE"), MonitoringEnabled: true,
		Status: kyc.AMLPotentialMatch, RiskLevel: &risk, MatchCount: 3, Threshold: 0.8, LastScreenedAt: t0.Add(29 * 24 * time.Hour),
		NextScreenAt: ptr(t0.Add(30 * 24 * time.Hour)), CreatedAt: t0, UpdatedAt: t0.Add(29 * 24 * time.Hour)}
	sanction := match(7, "Anna SCHMIDT", "SCHMIDT, Anna", 0.964)
	sanction.Source, sanction.ListVersionID, sanction.Programs = "un_consolidated", "lv_un_2026_02_27", []string{"UN 1267 (ISIL/Al-Qaida)"}
	c.Results = []kyc.ListResult{
		{CheckType: "sanctions", Provider: "UN Security Council", Status: kyc.ListHit, RiskLevel: kyc.Risk(kyc.RiskHigh), MatchCount: 1,
			Matches: []kyc.MatchRecord{sanction}, Lists: []kyc.ListVersionRef{{ID: "lv_un_2026_02_27", Source: "un_consolidated",
				Provider: "UN Security Council", EntityCount: 1004, ImportedAt: "2026-02-27T06:00:00.000Z"}}},
		{CheckType: "pep", Provider: "OpenSanctions", Status: kyc.ListHit, RiskLevel: kyc.Risk(kyc.RiskMedium), MatchCount: 2,
			Matches: []kyc.MatchRecord{match(1, "Anna Maria Schmitt", "Anna Schmitt", 0.912), match(2, "Annette Schmidt", "A. Schmidt", 0.843)},
			Lists:   listRef("pep")},
		{CheckType: "adverse_media", Provider: "OpenSanctions", Status: kyc.ListError, Matches: []kyc.MatchRecord{},
			Lists: listRef("crime"), Error: ptr("list version lv_crime_2026_02_27 is being imported; retry scheduled")},
	}
	prev := kyc.AMLNoMatch
	for i := range 30 {
		s := kyc.Screening{ID: fmt.Sprintf("scr_%02d", i), Trigger: kyc.TriggerDaily, ScreenedAt: t0.Add(time.Duration(i) * 24 * time.Hour),
			Status: kyc.AMLNoMatch, MatchCount: 0, NewMatches: []string{}, RemovedMatches: []string{}, ListVersions: []string{"lv_pep_2026_02_27"}}
		switch {
		case i == 0:
			s.Trigger = kyc.TriggerInitial
		case i%10 == 4:
			s.Trigger, s.Status, s.MatchCount = kyc.TriggerListUpdate, kyc.AMLPotentialMatch, 2
			s.NewMatches = []string{"opensanctions_peps/NK-01001", "opensanctions_peps/NK-01002"}
		case i%10 == 7:
			s.Trigger, s.RemovedMatches = kyc.TriggerListUpdate, []string{"opensanctions_peps/NK-01001", "opensanctions_peps/NK-01002"}
		}
		if i == 29 {
			s.Status, s.MatchCount, s.NewMatches = kyc.AMLPotentialMatch, 3, []string{"un_consolidated/NK-01007"}
			s.RiskLevel = &risk
		}
		if i > 0 {
			p := prev
			s.PreviousStatus = &p
		}
		s.Changed = s.PreviousStatus != nil && *s.PreviousStatus != s.Status || len(s.NewMatches) > 0
		prev = s.Status
		c.History = append(c.History, s)
	}
	return &AMLReport{GeneratedAt: kyc.FormatTime(t0.Add(29*24*time.Hour + time.Hour)),
		Organization: Organization{ID: "org_01JNX8Q4M2", Name: "Nordbank Payments GmbH"}, Check: c}
}
