//! Why a request could not reuse the previous request's prefix (docs/cache.md, "Causes" and
//! "Observed usage").

use serde::Serialize;

use super::gaps::{Gap, Replace, ReplaceKind};
use super::tools::ToolChanges;
use super::{CacheEntry, CacheOptions, LedgerInput};
use crate::input::event::{RequestHeader, Seq, Time};
use crate::views::diff::{diff_system, SectionStatus};

/// A request's route: `config.provider` and `config.model` of its latest request header, each
/// absent when not a string.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[non_exhaustive]
pub struct Route {
    /// `config.provider`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "wasm", tsify(optional))]
    pub provider: Option<String>,
    /// `config.model`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "wasm", tsify(optional))]
    pub model: Option<String>,
}

impl Route {
    /// The route of a request header.
    pub fn of(header: &RequestHeader) -> Route {
        let member = |name: &str| {
            let config = header.config.as_deref()?;
            match config.get(name)? {
                crate::input::json::JsonValue::String(text) => Some(String::from(&**text)),
                _ => None,
            }
        };
        Route {
            provider: member("provider"),
            model: member("model"),
        }
    }
}

/// One reason a request's prefix cache broke, with what names it.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[non_exhaustive]
pub enum CacheCause {
    /// The route changed.
    Route {
        /// The previous request's route (empty when it had no header).
        from: Route,
        /// This request's route.
        to: Route,
    },
    /// The tools differ (by name; a tool without a string name by its JSON text).
    Tools {
        /// Names only in this request's tools.
        added: Vec<String>,
        /// Names only in the previous request's tools.
        removed: Vec<String>,
        /// Names in both whose definitions differ.
        changed: Vec<String>,
    },
    /// A `system/message` replaced a range: the prompt was rewritten at the head.
    #[serde(rename_all = "camelCase")]
    SystemRewrite {
        /// The rewrite's seq.
        seq: Seq,
        /// The first replaced node.
        start_seq: Seq,
        /// The last replaced node.
        end_seq: Seq,
        /// The titles of the prompt sections it added, removed or changed (as the prompt diff
        /// names them), against the prompt in force just before it.
        sections: Vec<String>,
    },
    /// A `user/message` replaced a range: a compaction.
    #[serde(rename_all = "camelCase")]
    Compaction {
        /// The checkpoint's seq.
        seq: Seq,
        /// The first replaced node.
        start_seq: Seq,
        /// The last replaced node.
        end_seq: Seq,
    },
    /// A `tool/result` replaced a range: a prune.
    #[serde(rename_all = "camelCase")]
    Prune {
        /// The pruned result's seq.
        seq: Seq,
        /// The first replaced node.
        start_seq: Seq,
        /// The last replaced node.
        end_seq: Seq,
    },
    /// An event of another type replaced a range.
    #[serde(rename_all = "camelCase")]
    Replacement {
        /// The replacing event's seq.
        seq: Seq,
        /// The first replaced node.
        start_seq: Seq,
        /// The last replaced node.
        end_seq: Seq,
        /// The replacing event's type (`"other"` for a type the interpreter does not read).
        #[serde(rename = "type")]
        kind: String,
    },
    /// A request header started a new series (listed only when no cause above holds).
    Series {
        /// The header's seq.
        seq: Seq,
    },
    /// The provider reported reading less than the structure kept, and the request was sent
    /// more than `cacheTtlMs` after the previous answer: the prefix was evicted while idle.
    #[serde(rename_all = "camelCase")]
    Idle {
        /// Milliseconds from the previous answer to this request's read point.
        gap_ms: f64,
    },
}

/// Pushes the causes (docs/cache.md, "Causes") between the previous request (`before`) and this
/// one, whose tools differ from the previous ones by `tools`, with the gap's `replaces`, onto
/// `causes`.
pub(super) fn between(
    causes: &mut Vec<CacheCause>,
    (before, gap): (&Gap, &Gap),
    tools: Option<ToolChanges>,
    replaces: &[Replace],
    input: &LedgerInput<'_>,
) {
    let sections = |replace: &Replace, text: &str| changed_sections(input, replace.seq, text);
    let series = || series_seq(input, before.read_seq, gap.read_seq);
    listed_into(
        causes,
        (before.route.as_deref(), gap.route.as_deref()),
        tools,
        replaces,
        (&sections, &series),
    );
}

/// The causes (docs/cache.md, "Causes") from their parts: the routes of the previous request and
/// this one, how the tools differ, the replaces between them, the sections a system rewrite changed
/// (given the rewrite and its text), and the first series header between them.
pub(super) fn listed(
    (from, to): (Option<&Route>, Option<&Route>),
    tools: Option<ToolChanges>,
    replaces: &[Replace],
    sections: &dyn Fn(&Replace, &str) -> Vec<String>,
    series: &dyn Fn() -> Option<Seq>,
) -> Vec<CacheCause> {
    let mut causes = Vec::new();
    listed_into(&mut causes, (from, to), tools, replaces, (sections, series));
    causes
}

/// Type of the callbacks of [`listed_into`]: a system rewrite's changed sections, and the
/// first series header of the gap.
type Namers<'a> = (
    &'a dyn Fn(&Replace, &str) -> Vec<String>,
    &'a dyn Fn() -> Option<Seq>,
);

/// [`listed`], pushing onto `causes` (which may hold earlier requests' causes).
fn listed_into(
    causes: &mut Vec<CacheCause>,
    (from, to): (Option<&Route>, Option<&Route>),
    tools: Option<ToolChanges>,
    replaces: &[Replace],
    (sections, series): Namers<'_>,
) {
    let start = causes.len();
    // Routes are shared while a header repeats the route: a pointer usually answers.
    let same_route = match (from, to) {
        (Some(a), Some(b)) => std::ptr::eq(a, b) || a == b,
        (a, b) => a == b,
    };
    if !same_route {
        causes.push(CacheCause::Route {
            from: from.cloned().unwrap_or_default(),
            to: to.cloned().unwrap_or_default(),
        });
    }
    if let Some(tools) = tools.filter(|tools| !tools.is_empty()) {
        causes.push(CacheCause::Tools {
            added: tools.added,
            removed: tools.removed,
            changed: tools.changed,
        });
    }
    for replace in replaces {
        let (seq, start_seq, end_seq) = (replace.seq, replace.start, replace.end);
        causes.push(match &replace.kind {
            ReplaceKind::System(text) => CacheCause::SystemRewrite {
                seq,
                start_seq,
                end_seq,
                sections: sections(replace, text),
            },
            ReplaceKind::User => CacheCause::Compaction {
                seq,
                start_seq,
                end_seq,
            },
            ReplaceKind::Tool => CacheCause::Prune {
                seq,
                start_seq,
                end_seq,
            },
            ReplaceKind::Other(kind) => CacheCause::Replacement {
                seq,
                start_seq,
                end_seq,
                kind: (*kind).to_owned(),
            },
        });
    }
    if causes.len() == start {
        if let Some(seq) = series() {
            causes.push(CacheCause::Series { seq });
        }
    }
}

/// The first header with reason `series` or `startsSeries` in `(after, upto]`.
fn series_seq(input: &LedgerInput<'_>, after: Seq, upto: Seq) -> Option<Seq> {
    let from = input.events.partition_point(|event| event.seq <= after);
    let events = input.events.get(from..).unwrap_or_default();
    events
        .iter()
        .take_while(|event| event.seq <= upto)
        .find(|event| {
            event.header().is_some_and(|header| {
                header.starts_series || header.reason == crate::input::event::HeaderReason::Series
            })
        })
        .map(|event| event.seq)
}

/// The sections a system rewrite at `seq` changed against the prompt in force before it.
fn changed_sections(input: &LedgerInput<'_>, seq: Seq, text: &str) -> Vec<String> {
    let before = (input.state_at)(seq.saturating_sub(1))
        .and_then(|state| state.effective())
        .map_or("", |node| &*node.text);
    sections_changed(before, text)
}

/// The titles of the prompt sections that differ between `before` and `after`.
pub(super) fn sections_changed(before: &str, after: &str) -> Vec<String> {
    diff_system(before, after)
        .sections
        .into_iter()
        .filter(|section| section.status != SectionStatus::Unchanged)
        .map(|section| section.title)
        .collect()
}

/// `idle` (docs/cache.md, "Observed usage"): with `cacheTtlMs`, a shortfall above 0 and a read
/// point more than that long after the previous answer.
pub(super) fn idle(
    before: &Gap,
    gap: &Gap,
    entry: &CacheEntry,
    options: &CacheOptions,
) -> Option<CacheCause> {
    idle_after(before.answer_time, gap.read_time, entry, options)
}

/// [`idle`] from the previous answer's time and this request's read time.
pub(super) fn idle_after(
    answer_time: Option<Time>,
    read_time: Time,
    entry: &CacheEntry,
    options: &CacheOptions,
) -> Option<CacheCause> {
    let ttl = options.cache_ttl_ms?;
    if entry.shortfall_tokens? <= 0.0 {
        return None;
    }
    let gap_ms = read_time - answer_time?;
    (gap_ms > ttl).then_some(CacheCause::Idle { gap_ms })
}
