package decision

import (
	"fmt"
	"sort"

	"kycd/face"
	"kycd/store"
)

// SigDuplicateFace is the signal that compares the selfie's face with the
// faces other applicants of the organization submitted.
const SigDuplicateFace = "duplicate_face"

// maxFaceMatches bounds the matches listed in duplicate_face's data.
const maxFaceMatches = 20

// DuplicateFace compares the selfie's descriptor with others (the
// organization's stored descriptors of other applicants, selfies and
// document portraits) by face.Compare. Any closer than
// face.MatchThreshold fails it with DUPLICATE_FACE: the same person seems
// to be verifying under another identity. It is not_run when the selfie
// has no descriptor (no selfie, or no face found in it).
//
// It is a linear scan: 128 multiply-adds per stored face, fine up to tens
// of thousands of them (see docs/decisions.md for the measured cost).
func DuplicateFace(selfie *face.Descriptor, others []store.FaceDescriptor) Signal {
	if selfie == nil {
		return notRun(SigDuplicateFace, "No face was described in the selfie, so none could be compared with other applicants'.")
	}
	type match struct {
		d    *store.FaceDescriptor
		dist float64
	}
	var matches []match
	nearest := -1.0
	for i := range others {
		o := &others[i]
		if len(o.Descriptor) != face.DescriptorLen {
			continue
		}
		dist := face.Compare(*selfie, face.Descriptor(o.Descriptor))
		if nearest < 0 || dist < nearest {
			nearest = dist
		}
		if dist < face.MatchThreshold {
			matches = append(matches, match{o, dist})
		}
	}
	sort.SliceStable(matches, func(i, j int) bool { return matches[i].dist < matches[j].dist })

	s := newSignal(SigDuplicateFace)
	s.Data["compared"] = len(others)
	s.Data["threshold"] = face.MatchThreshold
	if nearest >= 0 {
		s.Data["nearestDistance"] = round3(nearest)
	}
	list := make([]map[string]any, 0, min(len(matches), maxFaceMatches))
	for _, m := range matches[:min(len(matches), maxFaceMatches)] {
		list = append(list, map[string]any{"requestId": m.d.RequestID, "applicantId": m.d.ApplicantID,
			"captureId": m.d.CaptureID, "distance": round3(m.dist)})
	}
	s.Data["matches"] = list
	if len(matches) == 0 {
		s.Detail = fmt.Sprintf("The selfie's face matches none of the %d faces other applicants submitted.", len(others))
		return s
	}
	m := matches[0]
	s.add(Fail, 0, CodeDuplicateFace, fmt.Sprintf(
		"The selfie's face matches a face another applicant submitted (request %s): descriptor distance %.2f, below the threshold %.2f.",
		m.d.RequestID, m.dist, face.MatchThreshold))
	if len(matches) > 1 {
		s.Findings[0].Message += fmt.Sprintf(" %d faces of other applicants match.", len(matches))
	}
	s.Detail = s.Findings[0].Message
	return s
}
