package decision

import (
	"bytes"
	"context"
	"fmt"
	"image"
	_ "image/jpeg" // stored captures are JPEG or PNG
	_ "image/png"
	"slices"
	"sort"
	"sync"
	"time"

	"kycd/face"
	"kycd/kyc"
	"kycd/mrz/ocr"
	"kycd/store"
)

// EngineVersion is recorded with every automated decision; change it when
// a signal or the decision rule changes what it computes.
const EngineVersion = "kycd-engine-2"

// ScreenFunc screens the applicant against the AML lists (the AML
// service's screener with the organization's threshold).
type ScreenFunc func(ctx context.Context, orgID string, env kyc.Environment, firstName, lastName string, dob, country *string) ([]kyc.ListResult, error)

// Auto is the automated engine: it computes every signal and applies the
// organization's policy. Sandbox requests run every signal too, but their
// outcome follows the sandbox triggers (see sandboxOutcome).
type Auto struct {
	Store  *store.Store
	Screen ScreenFunc
	// Policy returns the organization's policy (DefaultPolicy when it has
	// none).
	Policy func(ctx context.Context, orgID string) (*Policy, error)
	Now    func() time.Time
	// ImageSignals computes the per-image signals (quality, faces); nil
	// runs none, recorded as not_run. Face matching (face_match and
	// duplicate_face) runs with them and is not_run without them.
	ImageSignals func(c kyc.Capture, img image.Image) []Signal
}

// Decide computes the signals and the decision for one submission.
func (e *Auto) Decide(ctx context.Context, in Input) (Result, error) {
	now := e.Now()
	pol := DefaultPolicy()
	if e.Policy != nil {
		p, err := e.Policy(ctx, in.Request.OrganizationID)
		if err != nil {
			return Result{}, fmt.Errorf("load policy: %w", err)
		}
		pol = p
	}
	r, a := in.Request, in.Applicant
	var signals []Signal

	// Images, in parallel: decoding, measuring and the face models are
	// the slow part. Each image is decoded once; the document front's and
	// the selfie's faces are found and described beside their other
	// signals.
	work := make([]imageWork, len(in.Captures))
	docIdx, selfieIdx := faceCaptures(in.Captures)
	var wg sync.WaitGroup
	for i, c := range in.Captures {
		wg.Go(func() { work[i] = e.imageWork(c, i == docIdx, i == selfieIdx, now) })
	}
	// The session frames' faces, for portrait_not_selfie: only when there
	// is a document front whose portrait they are compared with.
	var frames []sessionFrame
	framesMissing := 0
	if e.ImageSignals != nil && docIdx >= 0 {
		wg.Go(func() { frames, framesMissing = sessionFrames(in.LivenessSessions) })
	}

	results, err := e.Screen(ctx, r.OrganizationID, r.Environment, a.FirstName, a.LastName, a.DOB, a.Country)
	if err != nil {
		wg.Wait()
		return Result{}, fmt.Errorf("screen applicant: %w", err)
	}
	signals = append(signals, AMLScreening(results, pol.SanctionsRejectScore))

	// The duplicates signal comes here, once the document is read.
	dupAt := len(signals)
	signals = append(signals, Signal{})
	var otherFaces []store.FaceDescriptor
	if e.ImageSignals != nil && selfieIdx >= 0 {
		if otherFaces, err = e.Store.FindFaceDescriptors(ctx, r.OrganizationID, r.Environment, r.ApplicantID); err != nil {
			wg.Wait()
			return Result{}, err
		}
	}

	ipCount := 0
	for _, c := range in.Captures {
		n, err := e.Store.CountRequestsFromIP(ctx, r.OrganizationID, r.Environment, c.IP, now.Add(-24*time.Hour))
		if err != nil {
			wg.Wait()
			return Result{}, err
		}
		ipCount = max(ipCount, n)
	}
	signals = append(signals, CaptureIntegrity(in.Captures, ipCount, pol.MaxRequestsPerIP))

	wg.Wait()
	// What the document says is what the server read from its images.
	var reads []DocumentRead
	var docs []kyc.Capture
	var docLooks []*imageLook
	var selfie *kyc.Capture
	var selfieLook *imageLook
	var selfieFace *imageFace
	for i, c := range in.Captures {
		switch c.Kind {
		case "document":
			docs, docLooks = append(docs, c), append(docLooks, work[i].look)
			if work[i].look != nil {
				reads = append(reads, DocumentRead{CaptureID: c.ID, Result: work[i].look.read, Barcode: work[i].look.barcode})
			}
		case "selfie":
			if selfie == nil {
				selfie, selfieLook, selfieFace = &in.Captures[i], work[i].look, work[i].face
			}
		}
	}
	docSig, parsed := DocumentDataSignal(r.DocumentData, reads, a, pol.MinimumAge, now)
	// Duplicates by the number the document says (the typed one only
	// when no document was read), by image and by details.
	number, source, readNumber := "", "", ""
	switch {
	case parsed != nil && parsed.DocumentNumber != "":
		number, source, readNumber = parsed.DocumentNumber, "document_image", parsed.DocumentNumber
	case r.DocumentData != nil && r.DocumentData.DocumentNumber != "":
		number, source = r.DocumentData.DocumentNumber, Typed
	}
	var hashes []string
	for _, c := range in.Captures {
		hashes = append(hashes, c.SourceSHA256, c.SHA256)
	}
	dups, err := e.Store.FindDuplicates(ctx, r, a, number, hashes)
	if err != nil {
		return Result{}, err
	}
	signals[dupAt] = Duplicates(dups, source)
	signals = append([]Signal{docSig, DataConsistency(a, r.DocumentData, parsed, pol)}, signals...)
	signals = append(signals, CountryRisk(pol, countriesOf(a, r.DocumentData, parsed)))
	for _, w := range work {
		signals = append(signals, w.signals...)
	}
	faceSignals, faces := e.faceSignals(in, docIdx, selfieIdx, work, otherFaces)
	signals = append(signals, faceSignals...)
	if e.ImageSignals != nil {
		signals = append(signals, SelfieNotDocument(selfie, selfieLook, selfieFace, docs, docLooks))
	} else {
		signals = append(signals, notRun(SigSelfieDocument, "Image signals are not configured."))
	}
	signals = append(signals, e.documentSignals(docs, docLooks, reads, work, docIdx, selfieIdx, in.Captures, frames, framesMissing)...)
	res := apply(pol, r.Environment, signals)
	res.Screenings, res.Faces, res.DocumentNumberRead = results, faces, readNumber
	res.AddressRead = addressRead(reads)
	if r.Environment == kyc.Sandbox {
		if err := sandboxOutcome(&res, a, r); err != nil {
			return Result{}, err
		}
	}
	return res, nil
}

// imageWork is what the engine computes from one capture's image.
type imageWork struct {
	signals []Signal
	face    *imageFace  // the document front's or the selfie's, for face_match
	look    *imageLook  // documents and selfies: the MRZ read, the hash
	img     image.Image // the selfie (passive liveness) and the document front (portrait reuse)
}

// faceCaptures returns the indexes of the captures face_match compares:
// the document's front and the selfie (-1 when missing).
func faceCaptures(caps []kyc.Capture) (doc, selfie int) {
	doc, selfie = -1, -1
	for i, c := range caps {
		switch {
		case doc < 0 && c.Kind == "document" && c.Side != nil && *c.Side == "front":
			doc = i
		case selfie < 0 && c.Kind == "selfie":
			selfie = i
		}
	}
	return doc, selfie
}

// imageWork decodes one capture and runs the per-image signals, and for
// the document front (doc) or the selfie (selfie) finds and describes
// its face at the same time.
func (e *Auto) imageWork(c kyc.Capture, doc, selfie bool, now time.Time) imageWork {
	if e.ImageSignals == nil {
		sigs := []Signal{notRunImage(SigImageQuality, c, "Image signals are not configured.")}
		if c.Kind == "document" {
			sigs = append(sigs, notRunImage(SigDocumentRendering, c, "Image signals are not configured."),
				notRunImage(SigDocumentRecapture, c, "Image signals are not configured."))
		}
		return imageWork{signals: sigs}
	}
	img, _, err := image.Decode(bytes.NewReader(c.Data))
	if err != nil {
		// Stored images were decoded and re-encoded at upload, so this
		// means damage after the fact: say so, do not guess.
		return imageWork{signals: []Signal{notRunImage(SigImageQuality, c, "The stored image could not be decoded: "+err.Error())}}
	}
	var w imageWork
	if selfie || doc {
		w.img = img
	}
	var wg sync.WaitGroup
	if doc || selfie {
		wg.Go(func() {
			f := findFace(img, doc)
			w.face = &f
		})
	}
	if c.Kind == "document" || c.Kind == "selfie" {
		wg.Go(func() {
			l := &imageLook{hash: dHash(img), pixels: img.Bounds().Dx() * img.Bounds().Dy(), bounds: img.Bounds()}
			if r, err := ocr.Read(img, now); err == nil {
				l.read = r
			} else {
				// The embedded model failed to load: a broken build.
				// Read nothing rather than guess; the signals say so.
				l.read = &ocr.Result{Status: ocr.StatusUnreadable, Hint: ocr.HintUnclear, Failing: []string{err.Error()}}
			}
			// A back whose MRZ was read (an ID card's) needs no barcode.
			if wantsBarcode(c) && l.read.Status != ocr.StatusRead {
				l.barcode = readBarcode(img)
			}
			w.look = l
		})
	}
	w.signals = e.ImageSignals(c, img)
	if c.Kind == "document" {
		w.signals = append(w.signals, documentPixels(c, img)...)
	}
	wg.Wait()
	return w
}

// faceSignals compares the selfie's face with the document portrait
// (face_match) and with the faces of the organization's other applicants
// (duplicate_face), and returns the descriptors to store.
func (e *Auto) faceSignals(in Input, docIdx, selfieIdx int, work []imageWork, others []store.FaceDescriptor) ([]Signal, []store.FaceDescriptor) {
	var selfieCap *kyc.Capture
	if selfieIdx >= 0 {
		selfieCap = &in.Captures[selfieIdx]
	}
	live := SelfieLiveness(selfieCap, in.LivenessSessions)
	if e.ImageSignals == nil {
		return []Signal{notRun(SigFaceMatch, "Image signals are not configured."),
			notRun(SigDuplicateFace, "Image signals are not configured."), live,
			notRun(SigPassiveLiveness, "Image signals are not configured.")}, nil
	}
	var doc, selfie kyc.Capture
	var docFace, selfieFace *imageFace
	var selfieImg image.Image
	if docIdx >= 0 {
		doc, docFace = in.Captures[docIdx], work[docIdx].face
	}
	if selfieIdx >= 0 {
		selfie, selfieFace, selfieImg = in.Captures[selfieIdx], work[selfieIdx].face, work[selfieIdx].img
	}
	var faces []store.FaceDescriptor
	var selfieDesc *face.Descriptor
	for _, x := range []struct {
		c kyc.Capture
		f *imageFace
	}{{doc, docFace}, {selfie, selfieFace}} {
		// A face whose alignment fell outside the image has the zero
		// descriptor, which says nothing about whose it is.
		if x.f == nil || x.f.face == nil || x.f.face.Descriptor == (face.Descriptor{}) {
			continue
		}
		r := in.Request
		faces = append(faces, store.FaceDescriptor{OrganizationID: r.OrganizationID, Environment: r.Environment,
			ApplicantID: r.ApplicantID, RequestID: r.ID, CaptureID: x.c.ID, Descriptor: x.f.face.Descriptor[:]})
		if x.f == selfieFace {
			selfieDesc = &x.f.face.Descriptor
		}
	}
	return []Signal{faceMatch(doc, selfie, docFace, selfieFace), DuplicateFace(selfieDesc, others), live,
		PassiveLiveness(selfieCap, selfieImg, selfieFace)}, faces
}

func notRunImage(name string, c kyc.Capture, why string) Signal {
	s := notRun(name, why)
	s.CaptureID = c.ID
	return s
}

// countriesOf collects the countries the country-risk signal looks at.
func countriesOf(a *kyc.Applicant, doc *kyc.DocumentData, parsed *MRZData) map[string]string {
	m := map[string]string{}
	if a.Country != nil {
		m[applicantCountryRole] = *a.Country
	}
	if doc != nil && doc.IssuingCountry != "" {
		m[typedIssuingRole] = doc.IssuingCountry
	}
	if parsed != nil && parsed.NationalityISO != "" {
		m[readNationalityRole] = parsed.NationalityISO
	}
	return m
}

// Reason is one finding as the decision used it.
type Reason struct {
	Code    string  `json:"code"`
	Message string  `json:"message"`
	Signal  string  `json:"signal"`
	Action  Action  `json:"action"`
	Weight  float64 `json:"weight,omitempty"`
	// Unverified is the finding's: what it rests on that kycd did not
	// verify (such a reason reviews, never rejects).
	Unverified string `json:"unverified,omitempty"`
}

// apply turns signals into the decision: any reject finding rejects; else
// any review finding reviews; else the warn weights add up to the risk
// score (0–100) and reaching ReviewRiskScore reviews; approval also needs
// confidence ≥ ApproveConfidence, where confidence = (1 − risk/100) × the
// share of signals that ran. In live, approval also needs the floor
// (floor.go) whatever the policy says: what falls short of it is a review
// reason of its own.
func apply(p *Policy, env kyc.Environment, signals []Signal) Result {
	var reasons []Reason
	var ignored []string
	risk := 0.0
	ran, total := 0, 0
	for _, s := range signals {
		// A signal excluded from the evidence (passive_liveness) is
		// recorded for information and counts neither way.
		if !excluded(s) {
			total++
		}
		if s.Status != NotRun && !excluded(s) {
			ran++
		}
		for _, f := range s.Findings {
			act := p.action(f.Code)
			if f.Code == CodeSanctionsMatch && s.Data["sanctionsAboveRejectScore"] == true {
				act = ActReject
			}
			if act == ActIgnore {
				if !slices.Contains(ignored, f.Code) {
					ignored = append(ignored, f.Code)
				}
				continue
			}
			// Only what kycd read or observed may reject: a finding
			// that rests on typed details or on the applicant record
			// sends to review (its message says so).
			if f.Unverified != "" && act == ActReject {
				act = ActReview
			}
			r := Reason{Code: f.Code, Message: f.Message, Signal: s.Name, Action: act, Unverified: f.Unverified}
			if act == ActWarn {
				r.Weight = p.Weights[f.Code]
				risk += r.Weight
			}
			reasons = append(reasons, r)
		}
	}
	if env == kyc.Live {
		for _, f := range floorShortfalls(signals) {
			if !slices.ContainsFunc(reasons, func(r Reason) bool {
				return r.Code == f.Code && r.Signal == f.Signal && (r.Action == ActReject || r.Action == ActReview)
			}) {
				reasons = append(reasons, f)
			}
		}
	}
	risk = min(risk, 100)
	rank := map[Action]int{ActReject: 0, ActReview: 1, ActWarn: 2}
	sort.SliceStable(reasons, func(i, j int) bool {
		if rank[reasons[i].Action] != rank[reasons[j].Action] {
			return rank[reasons[i].Action] < rank[reasons[j].Action]
		}
		return reasons[i].Weight > reasons[j].Weight
	})
	coverage := 1.0
	if total > 0 {
		coverage = float64(ran) / float64(total)
	}
	confidence := round3((1 - risk/100) * coverage)
	out := Result{RiskScore: risk, Confidence: confidence}
	switch {
	case len(reasons) > 0 && reasons[0].Action == ActReject:
		out.Outcome, out.Reason, out.Confidence = Reject, reasons[0].Message, round3(coverage)
	case len(reasons) > 0 && reasons[0].Action == ActReview:
		out.Outcome, out.Reason = Review, reasons[0].Message
	case risk >= p.ReviewRiskScore:
		out.Outcome, out.Reason = Review, fmt.Sprintf("Risk score %.0f reaches the review level %.0f: %s", risk, p.ReviewRiskScore, reasons[0].Message)
	case confidence < p.ApproveConfidence:
		out.Outcome, out.Reason = Review, fmt.Sprintf("Confidence %.2f is below the %.2f an approval needs (%d of %d signals ran).", confidence, p.ApproveConfidence, ran, total)
	default:
		out.Outcome, out.Reason = Approve, approvalReason(p, signals, ignored, reasons)
	}
	if reasons == nil {
		reasons = []Reason{}
	}
	out.Processing = map[string]any{
		"engine": "auto", "engineVersion": EngineVersion, "policyVersion": p.Version, "automatedChecks": true,
		"signals": signals, "reasons": reasons, "riskScore": risk, "confidence": out.Confidence,
		"decision": out.Outcome, "signalsRun": ran, "signalsTotal": total,
	}
	return out
}
