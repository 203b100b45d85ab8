//! The ledger read forward only: events go in once, in seq order, and each request's entry
//! comes out as soon as its read point has passed, keeping nothing a later request cannot need.
//!
//! What it keeps: the live surface ([`live`]) with its token sums, the latest request header
//! and its route and tools tokens, the open request's step start, what happened since the last
//! read point (series headers, replaces with the prompt each system rewrite replaced, in-history
//! updates, the least surface key a replace touched) and the previous request's facts. Every
//! entry equals the one [`super::ledger_into`] gives for the same window (tests/cache.rs checks
//! it): the rules are the same, only where the facts come from differs. The longest common
//! prefix of two requests is read off the live surface: no node before the least key a replace
//! touched between their read points changed, so the previous request's prefix is the live nodes
//! before it (nodes appended since sit after every node it had).

mod live;

use std::rc::Rc;

use live::{Key, Live};

use super::causes::{idle_after, listed, sections_changed, Route};
use super::gaps::{replace_kind, Replace};
use super::prefix::may_keep;
use super::summary::Summing;
use super::{cost, observed, tools, CacheCost, CacheEntry, CacheOptions, CacheSummary};
use crate::fold::surface::{node_of, SurfaceSums};
use crate::input::event::{
    EventKind, HeaderReason, MessageRole, RequestHeader, Seq, SessionEvent, SurfaceOp, Time,
};
use crate::input::json::JsonValue;
use crate::input::tokens::tools_tokens;
use crate::views::context::ContextBreakdown;

/// The forward-only ledger of a window read from its first event (see the module text).
#[derive(Clone, Debug)]
pub(crate) struct Forward {
    options: CacheOptions,
    live: Live,
    summing: Summing,
    /// The latest request header, its route and its tools' tokens.
    header: Option<Rc<RequestHeader>>,
    route: Option<Rc<Route>>,
    tools_tokens: u32,
    /// The seq and time of the last event folded.
    last_seq: Option<Seq>,
    last_time: Time,
    /// The step start of the request whose read point has not passed.
    open: Option<Seq>,
    /// What happened since the last read point.
    gap: Pending,
    /// The facts of the request read last.
    previous: Option<Before>,
    /// Entries made and not taken yet.
    ready: Vec<CacheEntry>,
}

/// What happened since the last read point.
#[derive(Clone, Debug, Default)]
struct Pending {
    /// The first header with reason `series` or `startsSeries`.
    series: Option<Seq>,
    /// The replaces, in seq order.
    replaces: Vec<Replace>,
    /// The prompt in force just before each system rewrite, by the rewrite's seq.
    replaced_prompts: Vec<(Seq, Rc<str>)>,
    /// In-history updates.
    updates: u32,
    /// The least surface key whose node a replace dropped or placed.
    touched: Option<Key>,
}

/// What the next request needs of the one read before it.
#[derive(Clone, Debug)]
struct Before {
    answer_time: Option<Time>,
    incomplete: bool,
    header: Option<Rc<RequestHeader>>,
    route: Option<Rc<Route>>,
    breakdown: ContextBreakdown,
}

/// How a request's read point was reached: by its answer (seq, usage and time), or by the next
/// step start or the end of the window.
type Answer = Option<(Seq, Option<Rc<JsonValue>>, Time)>;

impl Forward {
    /// An empty ledger under `options` (already checked).
    pub fn new(options: &CacheOptions) -> Forward {
        Forward {
            options: options.clone(),
            live: Live::default(),
            summing: Summing::new(options),
            header: None,
            route: None,
            tools_tokens: 0,
            last_seq: None,
            last_time: 0.0,
            open: None,
            gap: Pending::default(),
            previous: None,
            ready: Vec::new(),
        }
    }

    /// Folds `event`, whose seq is above every seq folded.
    pub fn fold(&mut self, event: &SessionEvent) {
        debug_assert!(
            self.last_seq.is_none_or(|last| last < event.seq),
            "events are folded in seq order"
        );
        self.live.first_event(event.seq);
        if let Some(start) = self.open {
            let answer = match &event.kind {
                EventKind::Message(message) if message.role == MessageRole::Assistant => {
                    Some(Some((event.seq, message.usage.clone(), event.time)))
                }
                EventKind::StepStart => Some(None),
                _ => None,
            };
            if let Some(answer) = answer {
                // Read just before this event.
                self.resolve(start, event.seq.saturating_sub(1), answer);
            }
        }
        self.last_seq = Some(event.seq);
        if let EventKind::StepStart = event.kind {
            self.open = Some(event.seq);
        }
        if let Some(header) = event.header() {
            self.read_header(event.seq, header);
        }
        self.fold_surface(event);
        self.last_time = event.time;
    }

    /// Reads the open request at the last event folded (the window's end), and returns the
    /// summary over every entry made.
    pub fn finish(&mut self) -> CacheSummary {
        if let Some(start) = self.open {
            let read = self.last_seq.unwrap_or(start).max(start);
            self.resolve(start, read, None);
        }
        let summing = std::mem::replace(&mut self.summing, Summing::new(&self.options));
        summing.finish()
    }

    /// The entries made and not taken yet, in request order.
    pub fn ready(&mut self) -> &mut Vec<CacheEntry> {
        &mut self.ready
    }

    fn read_header(&mut self, seq: Seq, header: &Rc<RequestHeader>) {
        if header.starts_series || header.reason == HeaderReason::Series {
            self.gap.series.get_or_insert(seq);
        }
        let same_tools = (self.header.as_deref())
            .is_some_and(|last| Rc::ptr_eq(&last.tools_text, &header.tools_text));
        if !same_tools {
            self.tools_tokens = tools_tokens(&header.tools_text);
        }
        // A header that repeats the config (shared by the interner) or the route shares the
        // previous one's.
        let same_config =
            self.header
                .as_deref()
                .is_some_and(|last| match (&last.config, &header.config) {
                    (Some(a), Some(b)) => Rc::ptr_eq(a, b),
                    (None, None) => true,
                    _ => false,
                });
        if !same_config {
            let route = Route::of(header);
            if self.route.as_deref() != Some(&route) {
                self.route = Some(Rc::new(route));
            }
        }
        self.header = Some(Rc::clone(header));
    }

    fn fold_surface(&mut self, event: &SessionEvent) {
        let node = node_of(event);
        let text = event.system_text();
        match event.surface_op() {
            Some(SurfaceOp::Replace { start, end }) => {
                if text.is_some() {
                    // The prompt in force just before (none while the fold is uncertain).
                    let before = match self.live.last_text() {
                        Some(before) if !self.live.incomplete() => Rc::clone(before),
                        _ => Rc::from(""),
                    };
                    self.gap.replaced_prompts.push((event.seq, before));
                }
                let (kind, tokens) = node.unzip();
                let touched =
                    self.live
                        .replace(event.seq, (start, end), kind, tokens.unwrap_or(0), text);
                if let Some(key) = touched {
                    let least = self.gap.touched.map_or(key, |least| least.min(key));
                    self.gap.touched = Some(least);
                }
                self.gap.replaces.push(Replace {
                    seq: event.seq,
                    kind: replace_kind(&event.kind),
                    start,
                    end,
                });
            }
            _ => {
                if let Some((kind, tokens)) = node {
                    if event.is_system_append() {
                        // An in-history update: appended while a nonempty prompt survives, in a
                        // state that is not uncertain.
                        let update = !self.live.incomplete() && self.live.last_text().is_some();
                        self.gap.updates = self.gap.updates.saturating_add(u32::from(update));
                    }
                    self.live.append(event.seq, kind, tokens, text);
                }
            }
        }
    }

    /// Makes the entry of the request of step start `start`, read at `read_seq` (the tip).
    fn resolve(&mut self, start: Seq, read_seq: Seq, answer: Answer) {
        self.open = None;
        let gap = std::mem::take(&mut self.gap);
        let incomplete = self.live.incomplete();
        let breakdown = ContextBreakdown::of(&SurfaceSums {
            sums: self.live.sums(),
            tools: self.tools_tokens,
            incomplete,
        });
        let (usage, answer_time) = match &answer {
            Some((_, usage, time)) => (usage.as_deref(), Some(*time)),
            None => (None, None),
        };
        let mut entry = CacheEntry {
            seq: start,
            read_seq,
            route: self.route.as_deref().cloned(),
            total_tokens: breakdown.total_tokens,
            superseded_system_tokens: breakdown.superseded_system_tokens,
            tools_tokens: breakdown.tools_tokens,
            observed: observed::read(usage),
            ..CacheEntry::default()
        };
        if let Some(before) = &self.previous {
            if !(incomplete || before.incomplete) {
                self.compare(before, &gap, &breakdown, &mut entry);
            }
            entry.shortfall_tokens = entry
                .kept_tokens
                .zip(entry.observed.cache_read_tokens)
                .map(|(kept, read)| observed::shortfall(kept, read));
            let idle = idle_after(before.answer_time, self.last_time, &entry, &self.options);
            entry.causes.extend(idle);
        }
        let model = self
            .route
            .as_deref()
            .and_then(|route| route.model.as_deref());
        let priced = self.options.prices_for(model);
        entry.cost = priced.map(|(prices, key)| CacheCost {
            model: key.map(str::to_owned),
            ..cost::of(&entry, &prices)
        });
        self.summing.add(
            &entry,
            priced.as_ref().map(|(prices, _)| prices),
            &entry.causes,
        );
        self.ready.push(entry);
        self.previous = Some(Before {
            answer_time,
            incomplete,
            header: self.header.clone(),
            route: self.route.clone(),
            breakdown,
        });
    }

    /// Kept, new and broken tokens against the previous request (both contexts complete), the
    /// causes of a break, and the in-history trade's saved tokens.
    fn compare(
        &self,
        before: &Before,
        gap: &Pending,
        breakdown: &ContextBreakdown,
        entry: &mut CacheEntry,
    ) {
        let tools = tools::compare(before.header.as_deref(), self.header.as_deref());
        let same_route = before.route == self.route;
        let previous = &before.breakdown;
        let kept = if may_keep(same_route, tools.as_ref(), gap.series.is_some()) {
            let nodes = previous.total_tokens.saturating_sub(previous.tools_tokens);
            let prefix = gap.touched.map_or(nodes, |key| {
                let before_key = self.live.node_tokens_before(key);
                u32::try_from(before_key).unwrap_or(u32::MAX).min(nodes)
            });
            previous.tools_tokens.saturating_add(prefix)
        } else {
            0
        };
        entry.kept_tokens = Some(kept);
        entry.new_tokens = Some(breakdown.total_tokens.saturating_sub(kept));
        let broken = previous.total_tokens.saturating_sub(kept);
        entry.broken_tokens = Some(broken);
        if broken > 0 {
            let sections = |replace: &Replace, text: &str| {
                let found = gap
                    .replaced_prompts
                    .iter()
                    .find(|(seq, _)| *seq == replace.seq);
                debug_assert!(found.is_some(), "a rewrite's prompt before it is kept");
                sections_changed(found.map_or("", |(_, before)| &**before), text)
            };
            let series = || gap.series;
            entry.causes = listed(
                (before.route.as_deref(), self.route.as_deref()),
                tools,
                &gap.replaces,
                &sections,
                &series,
            );
            debug_assert!(!entry.causes.is_empty(), "a break has a cause");
        }
        if gap.updates > 0 && entry.causes.is_empty() {
            entry.saved_tokens = Some(kept.saturating_sub(previous.tools_tokens));
        }
    }
}
