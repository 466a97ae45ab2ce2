package decision

// Status is a signal's verdict.
type Status string

// Signal verdicts: not_run says why in Detail (no image of that kind, a
// check that does not apply to the document type…).
const (
	Pass   Status = "pass"
	Warn   Status = "warn"
	Fail   Status = "fail"
	NotRun Status = "not_run"
)

// Signal is one check's result. Every signal is deterministic: the same
// input gives the same Signal.
type Signal struct {
	Name      string         `json:"name"`      // e.g. image_quality
	CaptureID string         `json:"captureId"` // the image it looked at; "" for request-level signals
	Status    Status         `json:"status"`
	Score     float64        `json:"score"`  // [0,1], 1 = nothing wrong
	Detail    string         `json:"detail"` // one sentence for people
	Findings  []Finding      `json:"findings"`
	Data      map[string]any `json:"data"` // measurements (blur variance, face boxes, parsed MRZ…)
}

// Finding is one problem a signal saw, with a stable code the policy maps
// to an action (reject, review, or a risk weight).
type Finding struct {
	Code    string `json:"code"`    // e.g. DOCUMENT_EXPIRED, FACE_NOT_DETECTED
	Message string `json:"message"` // for people
	// Unverified names what the finding rests on that kycd did not read
	// or observe itself ("" when it rests on what it did): Typed, Record
	// or Browser. Such a finding never rejects: the policy's reject
	// becomes review, and the message says so (apply).
	Unverified string `json:"unverified,omitempty"`
}

// What an unverified finding rests on.
const (
	// Typed: the document details the applicant typed on the portal.
	Typed = "typed"
	// Record: the applicant record as the API client or a console user
	// gave it (its date of birth, country, name).
	Record = "applicant_record"
	// Browser: what the applicant's page said about itself.
	Browser = "browser"
)

// unverifiedNote is the sentence a finding's message ends with when it
// rests on data kycd did not verify.
var unverifiedNote = map[string]string{
	Typed:   " This rests on what the applicant typed, not on what kycd read from the document: a reviewer must check it.",
	Record:  " This rests on the applicant record, not on what kycd read from the document: a reviewer must check it.",
	Browser: " This rests on what the applicant's browser said, not on what kycd observed: a reviewer must check it.",
}

// Reason codes. The policy refers to these; the OpenAPI description and
// docs/decisions.md list them.
const (
	CodeImageTooSmall        = "IMAGE_TOO_SMALL"
	CodeImageBlurry          = "IMAGE_BLURRY"
	CodeImageGlare           = "IMAGE_GLARE"
	CodeImageDark            = "IMAGE_TOO_DARK"
	CodeDocumentNotFilling   = "DOCUMENT_NOT_FILLING_FRAME"
	CodeFaceNotDetected      = "FACE_NOT_DETECTED"
	CodeMultipleFaces        = "MULTIPLE_FACES"
	CodeMRZMissing           = "MRZ_MISSING"
	CodeMRZInvalid           = "MRZ_INVALID"
	CodeMRZChecksumFailed    = "MRZ_CHECKSUM_FAILED"
	CodeDocumentExpired      = "DOCUMENT_EXPIRED"
	CodeUnderAge             = "UNDER_AGE"
	CodeNameMismatch         = "NAME_MISMATCH"
	CodeDOBMismatch          = "DOB_MISMATCH"
	CodeNationalityMismatch  = "NATIONALITY_MISMATCH"
	CodeDocumentNumberDiffer = "DOCUMENT_NUMBER_MISMATCH"
	// CodeDataPartiallyCompared: data_consistency compared the document
	// with the applicant, but not the date of birth as well as the name.
	CodeDataPartiallyCompared = "DATA_PARTIALLY_COMPARED"
	CodeSanctionsMatch        = "SANCTIONS_MATCH"
	CodePEPMatch              = "PEP_MATCH"
	CodeAdverseMediaMatch     = "ADVERSE_MEDIA_MATCH"
	CodeScreeningFailed       = "SCREENING_FAILED"
	CodeDuplicateDocument     = "DUPLICATE_DOCUMENT"
	CodeDuplicateImage        = "DUPLICATE_IMAGE"
	CodeDuplicateApplicant    = "DUPLICATE_APPLICANT"
	CodeUploadedNotCaptured   = "UPLOADED_NOT_CAPTURED"
	CodeEditingSoftware       = "EDITING_SOFTWARE"
	CodeSameImageReused       = "SAME_IMAGE_REUSED"
	CodeManyAttemptsFromIP    = "MANY_ATTEMPTS_FROM_IP"
	CodeHighRiskCountry       = "HIGH_RISK_COUNTRY"
	CodeFaceMismatch          = "FACE_MISMATCH"
	CodeDuplicateFace         = "DUPLICATE_FACE"
	// CodeDocumentNotRead: the document's data was not read from its
	// image (no MRZ, or none read with confidence): only typed details.
	CodeDocumentNotRead = "DOCUMENT_NOT_READ"
	// CodeSelfieIsDocument: the selfie is a picture of a document, or the
	// document capture itself, not a live person's face.
	CodeSelfieIsDocument = "SELFIE_IS_DOCUMENT"
)
