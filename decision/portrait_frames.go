package decision

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image"
	"sync"

	"kycd/docforensics"
	"kycd/face"
	"kycd/kyc"
	"kycd/liveness"
)

// sessionFrame is one stored frame of a liveness session with its face,
// for portrait_not_selfie: the document's portrait must be none of the
// camera-session frames either (issue 24), not only the selfie.
type sessionFrame struct {
	session string
	seq     int
	img     image.Image
	face    *face.Face
}

// frameFaceWorkers bounds the face models run on session frames: they run
// beside the per-capture work on a machine of few cores.
const frameFaceWorkers = 2

// sessionFrames decodes every stored frame of the request's liveness
// sessions and finds its largest face. Frames whose image was not loaded,
// does not decode or holds no face are counted in missing (reported by
// the signal, never taken as compared). Frames the session's verdict
// already found faceless are skipped without running the models.
func sessionFrames(sessions []kyc.LivenessSession) (frames []sessionFrame, missing int) {
	type job struct {
		session string
		f       kyc.LivenessFrame
	}
	var jobs []job
	for _, s := range sessions {
		faceless := facelessFrames(s)
		for _, f := range s.Frames {
			if faceless[f.Seq] {
				missing++
				continue
			}
			jobs = append(jobs, job{s.ID, f})
		}
	}
	out := make([]*sessionFrame, len(jobs))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(frameFaceWorkers, len(jobs)) {
		wg.Go(func() {
			for i := range next {
				j := jobs[i]
				if len(j.f.Data) == 0 {
					continue
				}
				img, _, err := image.Decode(bytes.NewReader(j.f.Data))
				if err != nil {
					continue
				}
				if f := findFace(img, false); f.face != nil {
					out[i] = &sessionFrame{session: j.session, seq: j.f.Seq, img: img, face: f.face}
				}
			}
		})
	}
	for i := range jobs {
		next <- i
	}
	close(next)
	wg.Wait()
	for _, f := range out {
		if f == nil {
			missing++
			continue
		}
		frames = append(frames, *f)
	}
	return frames, missing
}

// facelessFrames are the frames (by seq) in which the session's analysis
// found no face: the verdict's frames are in capture order.
func facelessFrames(s kyc.LivenessSession) map[int]bool {
	var v liveness.Verdict
	if s.Verdict == nil || json.Unmarshal(s.Verdict, &v) != nil {
		return nil
	}
	out := map[int]bool{}
	for i, f := range v.Frames {
		if f.Faces == 0 {
			out[i] = true
		}
	}
	return out
}

// portraitVsFrames compares the document's portrait with every session
// frame (docforensics.PortraitReused, the selfie's measures and limits)
// and adds a finding for each frame it is the photograph of. It returns
// the per-frame measures for the signal's data.
func portraitVsFrames(s *Signal, docImg image.Image, doc *face.Face, frames []sessionFrame) []map[string]any {
	out := make([]map[string]any, 0, len(frames))
	for _, fr := range frames {
		dist := -1.0
		if doc.Descriptor != (face.Descriptor{}) && fr.face.Descriptor != (face.Descriptor{}) {
			dist = face.Compare(doc.Descriptor, fr.face.Descriptor)
		}
		fs, m := docforensics.PortraitReused(docImg, alignedRect(doc), fr.img, alignedRect(fr.face), dist)
		out = append(out, map[string]any{"sessionId": fr.session, "frame": fr.seq, "measures": m})
		for _, f := range fs {
			s.add(Fail, 0, f.Code, fmt.Sprintf("Camera session %s, frame %d: %s", fr.session, fr.seq, frameMessage(f.Message)))
		}
	}
	return out
}

// frameMessage says "the camera frame" where the finding said "the selfie".
func frameMessage(m string) string {
	return string(bytes.ReplaceAll(bytes.ReplaceAll([]byte(m), []byte("selfie's"), []byte("camera frame's")), []byte("the selfie"), []byte("the camera frame")))
}
