package decision

import "strings"

// codeLabels say each reason code in a reviewer's words, for the console
// (the code itself stays in the API, reports and webhooks).
var codeLabels = map[string]string{
	CodeImageTooSmall: "Image too small", CodeImageBlurry: "Image blurry", CodeImageGlare: "Glare on the image",
	CodeImageDark: "Image too dark", CodeDocumentNotFilling: "Document does not fill the frame",
	CodeFaceNotDetected: "No face found", CodeMultipleFaces: "Several faces", CodeMRZMissing: "No machine-readable zone",
	CodeMRZInvalid: "Machine-readable zone unreadable", CodeMRZChecksumFailed: "Machine-readable zone check digits wrong",
	CodeDocumentExpired: "Document expired", CodeUnderAge: "Under age", CodeNameMismatch: "Name differs from the document",
	CodeDOBMismatch: "Date of birth differs from the document", CodeNationalityMismatch: "Nationality differs",
	CodeDocumentNumberDiffer: "Document number differs", CodeDataPartiallyCompared: "Data only partly compared",
	CodeSanctionsMatch: "Possible sanctions match", CodePEPMatch: "Possible politically exposed person",
	CodeAdverseMediaMatch: "Possible adverse media", CodeScreeningFailed: "Screening could not run",
	CodeDuplicateDocument: "Document used before", CodeDuplicateImage: "Image used before",
	CodeDuplicateApplicant: "Applicant seen before", CodeUploadedNotCaptured: "Uploaded, not taken with the camera",
	CodeEditingSoftware: "Edited with software", CodeSameImageReused: "Same image used twice",
	CodeManyAttemptsFromIP: "Many attempts from one address", CodeHighRiskCountry: "High-risk country",
	CodeFaceMismatch: "Selfie does not match the document", CodeDuplicateFace: "Face seen on another applicant",
	CodeDocumentNotRead: "Document could not be read", CodeSelfieIsDocument: "Selfie is a photo of the document",
	CodeSelfieNotLive: "Selfie not live", CodeSpoofScore: "Selfie looks like a spoof",
	CodeDocumentUploaded: "Document uploaded, not taken in the camera session", CodeLooksRendered: "Document looks drawn, not photographed",
	CodeRecaptured: "Document photographed from a screen or a print", CodeLayoutMismatch: "Document layout does not fit its format",
	CodePortraitReused: "Document portrait is the selfie's photo", CodeSpecimen: "Published specimen document",
	CodeLivenessDiscontinuous: "Liveness frames not one continuous capture", CodeFaceMatchUncertain: "Faces too close to call: compare them",
	CodeLivenessLightMismatch: "Face did not reflect the screen colours",
}

// CodeLabel is a reason code in words; an unknown code (one an API
// client or an older version gave) is its own words, lower-cased.
func CodeLabel(code string) string {
	if l, ok := codeLabels[code]; ok {
		return l
	}
	s := strings.ToLower(strings.ReplaceAll(code, "_", " "))
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
