//! Trajectory facts (BEHAVIOUR.md section 6): real and synthetic request headers, known system
//! prompts, and one request per loaded step, built incrementally as events arrive in seq order.

use std::rc::Rc;

use serde::Serialize;

use crate::error::Error;
use crate::fold::request::{inspect_header, ChangeKind, PromptChange, PromptSnapshot};
use crate::fold::SystemPromptNode;
use crate::input::event::{EventKind, Seq, Time};
use crate::input::json::stringify::serialize_js_number;
use crate::pair_hash::StepMap;
use crate::room::try_room;
use crate::views::chat::{CardKey, CardSource};
use crate::views::location::PackedLocation;
use crate::views::observe::Census;
use crate::views::observe::Observed;

/// A request header of the trajectory: a real `request/header`, or a synthetic one folded from
/// an in-history prompt change.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[non_exhaustive]
pub struct HeaderFact {
    /// `source:seq`.
    #[cfg_attr(feature = "wasm", tsify(type = "string"))]
    pub key: CardKey,
    /// `request` for a real header, `system` for a synthetic one.
    pub source: CardSource,
    /// Seq of the header (for a synthetic one, of the event that changed the prompt).
    pub seq: Seq,
    /// Time of that event.
    #[serde(serialize_with = "serialize_js_number")]
    pub time: Time,
    /// The prompt in force from this header on.
    pub prompt: PromptSnapshot,
    /// How the prompt changed here, when it did.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "wasm", tsify(optional))]
    pub change: Option<PromptChange>,
    /// Turn of the header event, none at session level.
    #[cfg_attr(feature = "wasm", tsify(optional))]
    pub turn: Option<u64>,
    /// Step of the header event, none outside a step.
    #[cfg_attr(feature = "wasm", tsify(optional))]
    pub step: Option<u64>,
}

/// One model request: a loaded `step/start` and the prompt it was sent with.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[non_exhaustive]
pub struct TrajectoryRequest {
    /// Seq of the `step/start`.
    pub start_seq: Seq,
    /// Its turn.
    #[cfg_attr(feature = "wasm", tsify(optional))]
    pub turn: Option<u64>,
    /// Its step.
    #[cfg_attr(feature = "wasm", tsify(optional))]
    pub step: Option<u64>,
    /// The prompt the request was sent with, when a header is known.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "wasm", tsify(optional))]
    pub prompt: Option<PromptSnapshot>,
    /// The prompt's config.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "wasm", tsify(type = "unknown", optional))]
    pub request_config: Option<Rc<crate::input::json::JsonValue>>,
    /// The prompt change this request is the first to carry.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "wasm", tsify(optional))]
    pub prompt_change: Option<PromptChange>,
    /// What the model saw for this request and what the log shows of its cache (not in
    /// FORMAT.md's Request; see `docs/context.md`).
    pub context: crate::views::context::RequestContext,
}

/// The trajectory view of a window.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[non_exhaustive]
pub struct Trajectory {
    /// Header facts in seq order.
    pub headers: Vec<HeaderFact>,
    /// One request per loaded step, in seq order.
    pub requests: Vec<TrajectoryRequest>,
    /// Appended prompts that no header reports as a change.
    pub system_prompts: Vec<SystemPromptNode>,
}

/// The synthetic header carried between relevant events.
#[derive(Clone, Debug)]
struct Synthetic {
    seq: Seq,
    prompt: PromptSnapshot,
    change: Option<PromptChange>,
}

/// A header fact as the builder keeps it: its change boxed (most facts have none).
#[derive(Clone, Debug)]
struct Fact {
    source: CardSource,
    seq: Seq,
    time: Time,
    location: PackedLocation,
    prompt: PromptSnapshot,
    change: Option<Box<PromptChange>>,
}

impl Fact {
    fn to_header(&self) -> HeaderFact {
        HeaderFact {
            key: CardKey {
                source: self.source,
                seq: self.seq,
            },
            source: self.source,
            seq: self.seq,
            time: self.time,
            prompt: self.prompt.clone(),
            change: self.change.as_deref().cloned(),
            turn: self.location.get().turn,
            step: self.location.get().step,
        }
    }
}

/// Which header a real header compares against (see `newer_prompt_source`).
#[derive(Clone, Copy, Debug)]
enum Newer<'a> {
    /// The latest real header.
    Real,
    /// The carried synthetic header, with its change.
    Synthetic(Option<&'a PromptChange>),
}

/// The latest header fact located in a step, and the latest of the step's facts with a change
/// (indices into the header facts).
#[derive(Clone, Copy, Debug)]
struct StepEntry {
    fact: usize,
    change: Option<usize>,
}

/// Where a request's prompt and shown change come from: indices of header facts.
#[derive(Clone, Copy, Debug, Default)]
struct RequestLink {
    /// The fact whose prompt the request was sent with.
    prompt: Option<usize>,
    /// The fact whose change the request is the first to carry.
    change: Option<usize>,
}

/// The trajectory facts of a window, built event by event.
#[derive(Clone, Debug, Default)]
pub(crate) struct TrajectoryBuilder {
    /// Boxed: a prepend moves the kept facts once, and a pointer is a fraction of a fact's size
    /// (with the inspections boxed too, a 1,000-event prepend into 98,000 events went from
    /// 0.73-0.77 ms to 0.21 ms natively; into 9,000, 0.20 to 0.23 ms).
    #[allow(clippy::vec_box)]
    headers: Vec<Box<Fact>>,
    known_prompts: Vec<SystemPromptNode>,
    step_starts: Vec<(Seq, PackedLocation)>,
    latest_real: Option<usize>,
    carried: Option<Synthetic>,
    /// The requests' links, made by the first slice of the requests and kept up to date by the
    /// next ones (forgotten by a prepend, which moves the facts).
    links: std::cell::RefCell<Links>,
    /// Whether a step start's step is missing, or not after the step before it: then a
    /// step's requests cannot be found by a search.
    keys_disordered: bool,
    /// The step of the last step start.
    last_key: Option<(u64, u64)>,
    /// The seq of the latest fact or step start that shows a fact located in a step other
    /// than the one the latest step start before it opened or the one the next opens (before
    /// the first step start: in a step after the first one's). With none and the steps
    /// ascending, the facts of a request's step lie between the starts of the requests before
    /// and after it, and a range of requests is linked by itself (see `placed_link`).
    misplaced: Option<Seq>,
    /// The latest step of the facts located before the first step start.
    early_key: Option<(u64, u64)>,
    /// The step of the facts located after the last step start in a step other than its own:
    /// the next step start must open it.
    ahead_key: Option<(u64, u64)>,
}

#[cfg(feature = "testkit")]
thread_local! {
    /// How many requests were linked by themselves (`placed_link`), and how many of them a
    /// request before them showed the change of.
    pub(crate) static PLACED_LINKS: std::cell::Cell<(u64, u64)> =
        const { std::cell::Cell::new((0, 0)) };
}

/// How many facts `placed_link` looks at for one question before it links the whole
/// trajectory instead.
const PLACED_SCAN: usize = 64;

impl TrajectoryBuilder {
    /// Adds what the trajectory keeps on the heap to `profile`.
    #[cfg(feature = "testkit")]
    pub fn heap_profile(&self, profile: &mut crate::heap::HeapProfile) {
        profile.list("trajectory headers", &self.headers);
        let fact = std::mem::size_of::<Fact>();
        let changes = self
            .headers
            .iter()
            .filter(|fact| fact.change.is_some())
            .count();
        let change = std::mem::size_of::<PromptChange>();
        profile.add(
            "trajectory headers (boxed)",
            self.headers.len(),
            fact.saturating_mul(self.headers.len())
                .saturating_add(change.saturating_mul(changes)),
        );
        profile.list("trajectory known prompts", &self.known_prompts);
        profile.list("trajectory step starts", &self.step_starts);
    }

    /// Takes the next event of the window; returns whether it added anything to the trajectory.
    pub fn observe(&mut self, seen: &Observed) -> bool {
        let before = (self.headers.len(), self.known_prompts.len());
        if let Some(header) = seen.event.header() {
            let newer = self.newer_prompt_source();
            let inspection = match (newer, seen.inspection) {
                // Compared with the latest real header (or none): the window's own inspection.
                (Some((_, Newer::Real)) | None, Some(inspection)) => inspection.clone(),
                _ => inspect_header(
                    newer.map(|(prompt, _)| prompt),
                    seen.event.seq,
                    seen.event.time,
                    header,
                    seen.before.and_then(|state| state.effective()),
                ),
            };
            let change = match (inspection.change, newer) {
                (Some(change), _) => Some(change),
                (None, Some((_, Newer::Synthetic(inherited)))) => inherited.cloned(),
                (None, _) => None,
            };
            self.latest_real = Some(self.headers.len());
            self.push_fact(seen, CardSource::Request, inspection.prompt, change);
        }
        if seen.event.is_relevant() {
            self.relevant(seen);
        }
        if matches!(seen.event.kind, EventKind::StepStart) {
            self.open_step(seen.event.seq, seen.location.step_key());
            self.note_step(seen.location.step_key());
            self.step_starts
                .push((seen.event.seq, seen.location.into()));
            return true;
        }
        before != (self.headers.len(), self.known_prompts.len())
    }

    /// The prompt a real header compares against: the newer of the latest real header and the
    /// carried synthetic one, with the synthetic header's change when that one is newer.
    fn newer_prompt_source(&self) -> Option<(&PromptSnapshot, Newer<'_>)> {
        let real = self.latest_real.and_then(|index| self.headers.get(index));
        match (&self.carried, real) {
            (Some(synthetic), real) if real.is_none_or(|real| synthetic.seq > real.seq) => Some((
                &synthetic.prompt,
                Newer::Synthetic(synthetic.change.as_ref()),
            )),
            (_, Some(real)) => Some((&real.prompt, Newer::Real)),
            (_, None) => None,
        }
    }

    fn relevant(&mut self, seen: &Observed) {
        let Some(after) = seen.after else {
            return;
        };
        let event = seen.event;
        if after.is_uncertain() {
            let real = self.latest_real.and_then(|index| self.headers.get(index));
            self.carried = real.map(|real| Synthetic {
                seq: event.seq,
                prompt: real.prompt.with_system(Rc::from("")),
                change: None,
            });
            if let Some(synthetic) = self.carried.clone() {
                self.push_fact(seen, CardSource::System, synthetic.prompt, None);
            }
            return;
        }
        let introduced = after.introduced();
        let previous_text = seen
            .before
            .and_then(|state| state.effective())
            .map(|node| &node.text);
        let created = match after.effective() {
            Some(effective)
                if !previous_text
                    .is_some_and(|text| crate::input::shared::same(text, &effective.text))
                    && introduced.is_none_or(|node| node.update) =>
            {
                self.synthesize(effective)
            }
            _ => None,
        };
        match created {
            Some(synthetic) if synthetic.seq == event.seq => {
                self.push_fact(seen, CardSource::System, synthetic.prompt, synthetic.change);
            }
            _ => {
                if let Some(node) = introduced {
                    if event.is_system_append() && !node.text.is_empty() {
                        self.known_prompts.push(node.clone());
                    }
                }
            }
        }
    }

    /// Step 3: a synthetic header for a changed effective prompt, compared against the newer of
    /// the carried synthetic header and the latest real header. Returns it when one was made.
    fn synthesize(&mut self, effective: &SystemPromptNode) -> Option<Synthetic> {
        let (comparison, _) = self.newer_prompt_source()?;
        let synthetic = Synthetic {
            seq: effective.seq,
            prompt: comparison.with_system(Rc::clone(&effective.text)),
            change: Some(PromptChange {
                seq: effective.seq,
                time: effective.time,
                kind: ChangeKind::System,
                previous: Some(comparison.clone()),
            }),
        };
        self.carried = Some(synthetic.clone());
        Some(synthetic)
    }

    fn push_fact(
        &mut self,
        seen: &Observed,
        source: CardSource,
        prompt: PromptSnapshot,
        change: Option<PromptChange>,
    ) {
        debug_assert!(
            change
                .as_ref()
                .is_none_or(|change| change.seq <= seen.event.seq),
            "a change is anchored at or before the fact that reports it"
        );
        self.place(seen.location.step_key(), seen.event.seq);
        self.headers.push(Box::new(Fact {
            source,
            seq: seen.event.seq,
            time: seen.event.time,
            location: seen.location.into(),
            prompt,
            change: change.map(Box::new),
        }));
    }

    /// Joins on the facts and step starts `old`, a walk of the same events from a later window
    /// start, made after `through`, the last event this walk took; returns whether the
    /// trajectory changed. Both folds being uncertain from there on with the same latest header,
    /// `old` made the same facts after it as this walk would, none of them reports a change of a
    /// prompt before it, and no known prompt: both trajectories differ exactly when the parts
    /// up to `through` do.
    pub fn splice(&mut self, old: &mut TrajectoryBuilder, through: Seq) -> bool {
        self.links.take();
        old.links.take();
        let facts = old.headers.partition_point(|fact| fact.seq <= through);
        let starts = old.step_starts.partition_point(|(seq, _)| *seq <= through);
        let before = Facts {
            headers: old.headers.get(..facts).unwrap_or_default(),
            known_prompts: &old.known_prompts,
            step_starts: old.step_starts.get(..starts).unwrap_or_default(),
        };
        let changed = before.differs(&self.facts());
        if let Some(latest) = old.latest_real.and_then(|index| index.checked_sub(facts)) {
            self.latest_real = Some(self.headers.len().saturating_add(latest));
        }
        // The kept facts up to the first kept step start were placed after the step starts
        // of `old`'s walk: placed again after this walk's. Those after it were placed alike.
        let first_start = old.step_starts.get(starts).map(|(seq, _)| *seq);
        for fact in old.headers.get(facts..).unwrap_or_default() {
            if first_start.is_some_and(|start| fact.seq > start) {
                break;
            }
            self.place(fact.location.step_key(), fact.seq);
        }
        if let Some(misplaced) = old.misplaced {
            if first_start.is_some_and(|start| misplaced > start) {
                self.misplaced = Some(misplaced);
            }
        }
        let ahead_key = old.ahead_key;
        // The kept facts and starts move once, into this walk's lists.
        old.headers.drain(..facts);
        self.headers.append(&mut old.headers);
        if let Some((seq, first)) = old.step_starts.get(starts) {
            self.open_step(*seq, first.step_key());
            self.note_step(first.step_key());
            self.keys_disordered |= old.keys_disordered;
            self.last_key = old.last_key;
            self.ahead_key = ahead_key;
        }
        old.step_starts.drain(..starts);
        self.step_starts.append(&mut old.step_starts);
        self.carried = old.carried.take();
        changed
    }

    /// Makes room for what a batch of events can add ([`Error::OutOfMemory`] when the memory
    /// cannot give it).
    pub fn reserve(&mut self, census: &Census) -> Result<(), Error> {
        let headers = census.headers.saturating_add(census.relevant);
        try_room(&mut self.headers, headers)?;
        try_room(&mut self.known_prompts, census.system_appends)?;
        try_room(&mut self.step_starts, census.step_starts)
    }

    /// Frees the spare capacity of the fact lists (after a whole window was walked).
    pub fn shrink_to_fit(&mut self) {
        let shrink = |len: usize| len.saturating_add(crate::room::live_room(len));
        self.headers.shrink_to(shrink(self.headers.len()));
        self.known_prompts
            .shrink_to(shrink(self.known_prompts.len()));
        self.step_starts.shrink_to(shrink(self.step_starts.len()));
    }

    /// Notes where a fact located in `key` at `seq` sits (see `misplaced`).
    fn place(&mut self, key: Option<(u64, u64)>, seq: Seq) {
        let Some(key) = key else {
            return;
        };
        if self.step_starts.is_empty() {
            self.early_key = self.early_key.max(Some(key));
        } else if self.last_key != Some(key) {
            if self.ahead_key.is_some_and(|ahead| ahead != key) {
                self.misplaced = Some(seq);
            }
            self.ahead_key = Some(key);
        }
    }

    /// Notes the step of a step start at `seq` before it is added (see `misplaced`).
    fn open_step(&mut self, seq: Seq, key: Option<(u64, u64)>) {
        let placed = if self.step_starts.is_empty() {
            self.early_key.is_none_or(|early| Some(early) <= key)
        } else {
            self.ahead_key.is_none_or(|ahead| Some(ahead) == key)
        };
        if !placed {
            self.misplaced = Some(seq);
        }
        self.ahead_key = None;
    }

    /// Notes the step of the next step start (see `keys_disordered`).
    fn note_step(&mut self, key: Option<(u64, u64)>) {
        self.keys_disordered |= match (self.last_key, key) {
            (_, None) => true,
            (Some(last), Some(key)) => key <= last,
            (None, Some(_)) => false,
        };
        self.last_key = key;
    }

    /// The first of the `before` requests that the header facts from index `facts` on change:
    /// those of the steps these facts are located in (a fact outside a step, or in a step no
    /// earlier request has, changes only later requests). `before` when there is none.
    pub fn first_request_touched(&self, facts: usize, before: usize) -> usize {
        let old = self.step_starts.get(..before).unwrap_or_default();
        let mut first = before;
        for fact in self.headers.get(facts..).unwrap_or_default() {
            let Some(key) = fact.location.get().step_key() else {
                continue;
            };
            if self.keys_disordered {
                return 0;
            }
            // The steps ascend: each has one request, found by a search.
            if let Ok(at) =
                old.binary_search_by_key(&Some(key), |(_, location)| location.get().step_key())
            {
                first = first.min(at);
            }
        }
        first
    }

    /// How many header facts there are.
    pub fn fact_count(&self) -> usize {
        self.headers.len()
    }

    /// How many requests there are (one per loaded step start).
    pub fn request_count(&self) -> usize {
        self.step_starts.len()
    }

    /// The index of the last request started at or before `seq`.
    pub fn request_holding(&self, seq: Seq) -> Option<usize> {
        self.step_starts
            .partition_point(|(start, _)| *start <= seq)
            .checked_sub(1)
    }

    /// The requests of `range` (clamped to the requests), each without its context. When the
    /// facts are placed by their steps (see `misplaced`), each request is linked by itself, at
    /// the cost of its step's facts. Otherwise the first call links every request to its facts
    /// (one pass over the facts and step starts); a later call relinks only the requests from
    /// the first one that the facts and step starts added since reach (after a live append, the
    /// last ones), or all of them after a prepend.
    pub fn requests(&self, range: std::ops::Range<usize>) -> Vec<TrajectoryRequest> {
        // Each request linked by itself when the facts are placed by their steps (see
        // `placed_link`): none when they are not, or a link looks at too many facts.
        // Collected into a list reserved for the whole range: through `Option` or a
        // `filter_map`, a collect has no lower bound and grows the list by doubling.
        let count = self.step_starts.len();
        let view = self.facts();
        if !self.keys_disordered && self.misplaced.is_none() {
            let clamped = range.start.min(count)..range.end.min(count);
            let wanted = clamped.len();
            let mut requests = Vec::with_capacity(wanted);
            for index in clamped {
                match view
                    .placed_link(index)
                    .and_then(|link| view.request(index, link))
                {
                    Some(request) => requests.push(request),
                    None => break,
                }
            }
            if requests.len() == wanted {
                return requests;
            }
        }
        let mut fresh = Links::default();
        let mut kept = self.links.try_borrow_mut();
        let links = match kept.as_deref_mut() {
            Ok(links) => links,
            Err(_) => {
                debug_assert!(false, "the links are borrowed only here");
                &mut fresh
            }
        };
        self.update(links);
        let start = range.start;
        let links = links.links.get(range).unwrap_or_default();
        let mut requests = Vec::with_capacity(links.len());
        for (link, index) in links.iter().zip(start..) {
            if let Some(request) = view.request(index, *link) {
                requests.push(request);
            }
        }
        requests
    }

    /// Brings `links` up to date with the facts and step starts.
    fn update(&self, links: &mut Links) {
        let (facts, requests) = (self.headers.len(), self.step_starts.len());
        if links.facts == facts && links.links.len() == requests {
            return;
        }
        if links.facts > facts || links.links.len() > requests {
            debug_assert!(false, "links of a builder that only grew since");
            *links = Links::default();
        }
        let from = self
            .first_request_touched(links.facts, links.links.len())
            .min(links.links.len());
        let view = self.facts();
        add_entries(&mut links.entries, self.headers.as_slice(), links.facts);
        links.facts = facts;
        for link in links.links.get(from..).unwrap_or_default() {
            if let Some(seq) = link.change.and_then(|index| view.change_seq(index)) {
                if let Ok(at) = links.taken.binary_search(&seq) {
                    links.taken.remove(at);
                }
            }
        }
        links.links.truncate(from);
        links.links.reserve(requests.saturating_sub(from));
        for index in from..requests {
            let link = view.link(index, &links.entries, &mut links.taken);
            links.links.push(link);
        }
    }

    /// Whether the trajectory view differs from `other`'s.
    pub fn differs(&self, other: &TrajectoryBuilder) -> bool {
        self.facts().differs(&other.facts())
    }

    /// The header fact with `key`, when there is one.
    pub fn header(&self, key: CardKey) -> Option<HeaderFact> {
        let at = self.headers.partition_point(|fact| fact.seq < key.seq);
        self.headers
            .get(at)
            .filter(|fact| fact.source == key.source && fact.seq == key.seq)
            .map(|fact| fact.to_header())
    }

    /// The trajectory view: header facts, requests and unreported system prompts.
    pub fn trajectory(&self) -> Trajectory {
        self.facts().trajectory()
    }

    /// The lists the view is made of.
    fn facts(&self) -> Facts<'_> {
        Facts {
            headers: &self.headers,
            known_prompts: &self.known_prompts,
            step_starts: &self.step_starts,
        }
    }
}

/// Adds the facts of `facts` from index `from` on to `entries` (see `Facts::step_entries`).
fn add_entries(entries: &mut StepMap<StepEntry>, facts: &[Box<Fact>], from: usize) {
    for (index, fact) in facts.iter().enumerate().skip(from) {
        let Some(key) = fact.location.get().step_key() else {
            continue;
        };
        let entry = entries.entry(key).or_insert(StepEntry {
            fact: index,
            change: None,
        });
        entry.fact = index;
        if fact.change.is_some() {
            entry.change = Some(index);
        }
    }
}

/// The requests' links as the last slice of the requests left them, brought up to date by the
/// next one: facts and requests only come at the end between two prepends, so the requests
/// before the first one whose step a new fact reaches keep their links.
#[derive(Clone, Debug, Default)]
struct Links {
    /// The step entries of the first `facts` facts.
    entries: StepMap<StepEntry>,
    facts: usize,
    /// The links of the first requests.
    links: Vec<RequestLink>,
    /// The seqs of the changes those requests show, sorted.
    taken: Vec<Seq>,
}

/// The lists a trajectory view is made of (of a whole walk, or of its part up to an event).
#[derive(Clone, Copy)]
struct Facts<'a> {
    headers: &'a [Box<Fact>],
    known_prompts: &'a [SystemPromptNode],
    step_starts: &'a [(Seq, PackedLocation)],
}

impl Facts<'_> {
    /// Whether the trajectory view differs from `other`'s.
    #[inline(never)]
    fn differs(&self, other: &Facts) -> bool {
        if self.is_empty() || other.is_empty() {
            self.is_empty() != other.is_empty()
        } else {
            self.trajectory() != other.trajectory()
        }
    }

    fn is_empty(&self) -> bool {
        self.headers.is_empty() && self.known_prompts.is_empty() && self.step_starts.is_empty()
    }

    /// The latest fact located in each step, and the latest of its facts with a change.
    fn step_entries(&self) -> StepMap<StepEntry> {
        // At most one entry per fact: reserved, the map is not rehashed as it grows.
        let mut entries: StepMap<StepEntry> = StepMap::default();
        entries.reserve(self.headers.len());
        add_entries(&mut entries, self.headers, 0);
        entries
    }

    /// The link of request `index`, after those of every request before it (whose shown
    /// changes are in `taken`).
    fn link(
        &self,
        index: usize,
        entries: &StepMap<StepEntry>,
        taken: &mut Vec<Seq>,
    ) -> RequestLink {
        match self.step_starts.get(index) {
            Some(&(start_seq, location)) => self.link_at(start_seq, location, entries, taken),
            None => RequestLink::default(),
        }
    }

    /// [`Facts::link`] of the request started at `start_seq` in `location`: its prompt from
    /// the latest fact of its step (its change from the latest of them with one), else from
    /// the fact before its start; a change is shown by the first request that carries it.
    fn link_at(
        &self,
        start_seq: Seq,
        location: PackedLocation,
        entries: &StepMap<StepEntry>,
        taken: &mut Vec<Seq>,
    ) -> RequestLink {
        let source = location
            .get()
            .step_key()
            .and_then(|key| entries.get(&key))
            .map(|entry| {
                debug_assert!(entry.fact < self.headers.len(), "a step names its fact");
                (entry.fact, entry.change)
            })
            .or_else(|| {
                let before = self.headers.partition_point(|fact| fact.seq < start_seq);
                let fact = before.checked_sub(1)?;
                Some((fact, Some(fact)))
            });
        let Some((prompt, change)) = source else {
            return RequestLink::default();
        };
        let shown = change.filter(|index| match self.change_seq(*index) {
            Some(seq) => match taken.binary_search(&seq) {
                Ok(_) => false,
                Err(at) => {
                    taken.insert(at, seq);
                    true
                }
            },
            None => false,
        });
        RequestLink {
            prompt: Some(prompt),
            change: shown,
        }
    }

    /// The link of request `index` as `link` makes it, found from the facts of its step and
    /// of the change it carries alone. The facts being placed by their steps (see
    /// `misplaced`), the facts of a step lie between the starts of the requests before and
    /// after it, and the requests that can show the same change as this one are those whose
    /// facts or the fact before whose start carry it. None when a question looks at more than
    /// [`PLACED_SCAN`] facts.
    fn placed_link(&self, index: usize) -> Option<RequestLink> {
        let (prompt, change) = match self.step_sources(index)? {
            Some((latest, change)) => (Some(latest), change),
            None => {
                let before = self.facts_before(index).checked_sub(1);
                (before, before)
            }
        };
        let Some(prompt) = prompt else {
            return Some(RequestLink::default());
        };
        let change = match change.and_then(|fact| Some((fact, self.change_seq(fact)?))) {
            Some((fact, seq)) => {
                let shown = !self.shown_before(index, fact, seq)?;
                #[cfg(feature = "testkit")]
                PLACED_LINKS.with(|count| {
                    let (linked, hidden) = count.get();
                    count.set((linked, hidden.saturating_add(u64::from(!shown))));
                });
                shown.then_some(fact)
            }
            None => None,
        };
        #[cfg(feature = "testkit")]
        PLACED_LINKS.with(|count| {
            let (linked, hidden) = count.get();
            count.set((linked.saturating_add(1), hidden));
        });
        Some(RequestLink {
            prompt: Some(prompt),
            change,
        })
    }

    /// How many facts come before request `index`'s start (all of them past the last).
    #[inline(never)]
    fn facts_before(&self, index: usize) -> usize {
        self.step_starts
            .get(index)
            .map_or(self.headers.len(), |(start, _)| {
                self.headers.partition_point(|fact| fact.seq < *start)
            })
    }

    /// The latest fact located in request `index`'s step and the latest of them with a change
    /// (as `step_entries` finds them), none when the step has no fact; none at all when that
    /// takes looking at more than [`PLACED_SCAN`] facts.
    #[inline(never)]
    fn step_sources(&self, index: usize) -> Option<Option<(usize, Option<usize>)>> {
        let key = self.step_starts.get(index)?.1.step_key();
        let from = index
            .checked_sub(1)
            .map_or(0, |before| self.facts_before(before));
        let to = self.facts_before(index.saturating_add(1)).max(from);
        let mut latest = None;
        for (looked, at) in (from..to).rev().enumerate() {
            if looked >= PLACED_SCAN {
                return None;
            }
            let fact = self.headers.get(at)?;
            if fact.location.step_key() != key {
                continue;
            }
            let latest = *latest.get_or_insert(at);
            if fact.change.is_some() {
                return Some(Some((latest, Some(at))));
            }
        }
        Some(latest.map(|latest| (latest, None)))
    }

    /// Whether a request before request `index` carries the change `seq` of fact `fact` (the
    /// change request `index` would show): whether one of the facts with that change, which
    /// lie from its anchor on (a change is reported at or after its anchor), up to the later
    /// of `fact` and the facts before `index`'s start, is what such a request carries. None
    /// when that takes looking at more than [`PLACED_SCAN`] facts.
    fn shown_before(&self, index: usize, fact: usize, seq: Seq) -> Option<bool> {
        let last = fact.max(self.facts_before(index).saturating_sub(1));
        for (looked, at) in (0..=last).rev().enumerate() {
            if looked >= PLACED_SCAN {
                return None;
            }
            let candidate = self.headers.get(at)?;
            if candidate.seq < seq {
                return Some(false);
            }
            if self.change_seq(at) == Some(seq)
                && self.first_carrier(at)?.is_some_and(|first| first < index)
            {
                return Some(true);
            }
        }
        Some(false)
    }

    /// The first request whose change is fact `fact` (which has a change) before the filter
    /// of shown changes: the request of the step it is located in, when it is the latest of
    /// that step's facts with a change, or one of the requests after it whose start has it as
    /// the fact before and whose step has no fact. None when that takes looking at more than
    /// [`PLACED_SCAN`] facts or requests.
    fn first_carrier(&self, fact: usize) -> Option<Option<usize>> {
        let (seq, key) = {
            let fact = self.headers.get(fact)?;
            (fact.seq, fact.location.step_key())
        };
        let after = self.step_starts.partition_point(|(start, _)| *start < seq);
        let in_step = |request: usize| {
            key.is_some()
                && self
                    .step_starts
                    .get(request)
                    .is_some_and(|(_, location)| location.step_key() == key)
        };
        let own = match after.checked_sub(1) {
            Some(before) if in_step(before) => Some(before),
            _ => in_step(after).then_some(after),
        };
        if let Some(own) = own {
            if let Some((_, Some(latest))) = self.step_sources(own)? {
                if latest == fact {
                    return Some(Some(own));
                }
            }
        }
        for (looked, request) in (after..self.step_starts.len()).enumerate() {
            if looked >= PLACED_SCAN {
                return None;
            }
            if self.facts_before(request) != fact.saturating_add(1) {
                return Some(None);
            }
            if self.step_sources(request)?.is_none() {
                return Some(Some(request));
            }
        }
        Some(None)
    }

    /// The seq of the change of fact `index`, when it has one.
    fn change_seq(&self, index: usize) -> Option<Seq> {
        let change = self.headers.get(index)?.change.as_deref()?;
        Some(change.seq)
    }

    /// The request of step start `index`, whose prompt comes from `link` (its context left
    /// to the caller).
    fn request(&self, index: usize, link: RequestLink) -> Option<TrajectoryRequest> {
        let &(start_seq, location) = self.step_starts.get(index)?;
        Some(self.request_at(start_seq, location, link))
    }

    /// The request started at `start_seq` in `location`, whose prompt comes from `link` (its
    /// context left to the caller).
    fn request_at(
        &self,
        start_seq: Seq,
        location: PackedLocation,
        link: RequestLink,
    ) -> TrajectoryRequest {
        let location = location.get();
        let prompt = link
            .prompt
            .and_then(|fact| self.headers.get(fact))
            .map(|fact| fact.prompt.clone());
        let prompt_change = link
            .change
            .and_then(|fact| self.headers.get(fact))
            .and_then(|fact| fact.change.as_deref())
            .cloned();
        TrajectoryRequest {
            start_seq,
            turn: location.turn,
            step: location.step,
            request_config: prompt.as_ref().and_then(|prompt| prompt.config.clone()),
            prompt,
            prompt_change,
            context: Default::default(),
        }
    }

    /// The trajectory view: header facts, requests and unreported system prompts.
    fn trajectory(&self) -> Trajectory {
        // One pass over the step starts, each request linked and made in place: through a
        // list of links and a `filter_map` (no lower bound), the list grew by doubling, each
        // time copying every request.
        let entries = self.step_entries();
        let mut taken: Vec<Seq> = Vec::new();
        let requests = self
            .step_starts
            .iter()
            .map(|&(start_seq, location)| {
                let link = self.link_at(start_seq, location, &entries, &mut taken);
                self.request_at(start_seq, location, link)
            })
            .collect();
        let mut reported: Vec<Seq> = self
            .headers
            .iter()
            .filter_map(|fact| fact.change.as_ref().map(|change| change.seq))
            .collect();
        crate::sort::sort_by_key(&mut reported, |seq| (*seq, 0, 0));
        // A loop where a collect through a filter made its own copy of `Vec`'s extend.
        let mut system_prompts = Vec::with_capacity(self.known_prompts.len());
        for node in self.known_prompts {
            if reported.binary_search(&node.seq).is_err() {
                system_prompts.push(node.clone());
            }
        }
        Trajectory {
            headers: self.headers.iter().map(|fact| fact.to_header()).collect(),
            requests,
            system_prompts,
        }
    }
}
