//! `conversation.cacheLedger(options?)`: the cache ledger of the window (docs/cache.md). The
//! options are read member by member; the ledger crosses as numbers and a table of strings,
//! for `src/wasm/js/ledger.js` to build the objects from (absent members are NaN).

use std::collections::BTreeMap;

use wasm_bindgen::prelude::*;

use super::conversation::JsConversation;
use super::error::throw;
use super::read_room;
use crate::error::Error;
use crate::room::try_room;
use std::rc::Rc;

use crate::views::cache::{
    CacheCause, CacheEntry, CacheOptions, CacheSummary, LedgerSink, Prices, Route, TokenPrices,
};

#[wasm_bindgen]
extern "C" {
    /// The options argument as JS gives it (read member by member).
    #[wasm_bindgen(typescript_type = "CacheOptions")]
    pub type JsCacheOptions;
}

#[wasm_bindgen(module = "/src/wasm/js/ledger.js")]
extern "C" {
    #[wasm_bindgen(js_name = promptfoldCacheLedger)]
    fn make_ledger(numbers: &[f64], strings: &js_sys::Array) -> JsValue;
}

#[wasm_bindgen(js_class = Conversation)]
impl JsConversation {
    /// The cache ledger of the window: per trajectory request (`requests[i]` belongs to
    /// `views().trajectory.requests[i]`) what it kept of the previous request's prefix cache,
    /// why the rest was lost, what the answer's usage says and what it cost; and a summary.
    /// Throws a `PromptfoldError` (`INVALID_ARGUMENT`) for a price that is not a finite number
    /// `>= 0` or a `cacheTtlMs` that is not a finite number `>= 0`, and computes nothing then;
    /// `OUT_OF_MEMORY` when the memory cannot hold the ledger.
    #[wasm_bindgen(js_name = cacheLedger, unchecked_return_type = "CacheLedger")]
    pub fn cache_ledger(&self, options: Option<JsCacheOptions>) -> Result<JsValue, JsValue> {
        let options = options.map(JsValue::from);
        let options = throw(options_from_js(options.as_ref()))?;
        let count = self.inner.cache_ledger_len();
        throw(read_room::for_ledger(count))?;
        let mut packed = Packed::default();
        // Each entry takes about 20 numbers.
        throw(try_room(
            &mut packed.numbers,
            count.saturating_mul(20).saturating_add(1),
        ))?;
        packed.count(count);
        let summary = throw(self.inner.cache_ledger_into(&options, &mut packed))?;
        packed.summary(&summary);
        Ok(make_ledger(&packed.numbers, &packed.strings))
    }
}

fn invalid(argument: &str, message: &str) -> Error {
    Error::InvalidArgument {
        argument: format!("options{argument}"),
        message: message.to_owned(),
    }
}

fn member(object: &JsValue, name: &str) -> JsValue {
    js_sys::Reflect::get(object, &JsValue::from_str(name)).unwrap_or(JsValue::UNDEFINED)
}

fn is_absent(value: &JsValue) -> bool {
    value.is_undefined() || value.is_null()
}

fn object<'a>(value: &'a JsValue, at: &str) -> Result<Option<&'a JsValue>, Error> {
    if is_absent(value) {
        Ok(None)
    } else if value.is_object() {
        Ok(Some(value))
    } else {
        Err(invalid(at, "expected an object"))
    }
}

/// An optional number member; its range is checked by [`CacheOptions::check`].
fn number(value: &JsValue, at: &str) -> Result<Option<f64>, Error> {
    if is_absent(value) {
        return Ok(None);
    }
    value
        .as_f64()
        .map(Some)
        .ok_or_else(|| invalid(at, "expected a number"))
}

fn token_prices(value: &JsValue, at: &str) -> Result<Option<TokenPrices>, Error> {
    let Some(value) = object(value, at)? else {
        return Ok(None);
    };
    let required = |name: &str| {
        let at = format!("{at}.{name}");
        number(&member(value, name), &at)?.ok_or_else(|| invalid(&at, "expected a number"))
    };
    Ok(Some(TokenPrices {
        input: required("input")?,
        cache_read: required("cacheRead")?,
        cache_write: number(&member(value, "cacheWrite"), &format!("{at}.cacheWrite"))?,
        output: required("output")?,
    }))
}

/// `CacheOptions` from a JS value (`undefined` and `null` are the defaults).
fn options_from_js(value: Option<&JsValue>) -> Result<CacheOptions, Error> {
    let Some(value) = value.map(|value| object(value, "")).transpose()?.flatten() else {
        return Ok(CacheOptions::default());
    };
    let prices = match object(&member(value, "prices"), ".prices")? {
        None => None,
        Some(prices) => {
            let default = token_prices(&member(prices, "default"), ".prices.default")?;
            let models = match object(&member(prices, "models"), ".prices.models")? {
                None => None,
                Some(models) => {
                    let mut by_model = BTreeMap::new();
                    let entries = js_sys::Object::entries(&js_sys::Object::from(models.clone()));
                    for entry in entries.iter() {
                        let pair = js_sys::Array::from(&entry);
                        let name = pair.get(0).as_string().unwrap_or_default();
                        let at = format!(".prices.models[\"{name}\"]");
                        if let Some(prices) = token_prices(&pair.get(1), &at)? {
                            by_model.insert(name, prices);
                        }
                    }
                    Some(by_model)
                }
            };
            Some(Prices { default, models })
        }
    };
    Ok(CacheOptions {
        prices,
        cache_ttl_ms: number(&member(value, "cacheTtlMs"), ".cacheTtlMs")?,
    })
}

/// The numbers and strings of a ledger, in the order `src/wasm/js/ledger.js` reads them.
#[derive(Default)]
struct Packed {
    numbers: Vec<f64>,
    strings: js_sys::Array,
    /// The texts in `strings`, by index (few: route, tool and section names).
    texts: Vec<String>,
    /// The last route sent.
    last_route: Option<Rc<Route>>,
    /// The index of its model in `strings` (NaN: none; set with `last_route`).
    last_model: f64,
}

impl LedgerSink for Packed {
    fn entry(
        &mut self,
        entry: &mut CacheEntry,
        route: Option<&Rc<Route>>,
        cost_model: Option<&str>,
        causes: &mut Vec<CacheCause>,
    ) {
        self.entry_numbers(entry, route, cost_model);
        self.count(causes.len());
        for cause in causes.iter() {
            self.cause(cause);
        }
    }
}

/// An entry's flags (`src/wasm/js/ledger.js` reads the same bits): which optional parts follow.
const HAS_ROUTE: u32 = 1;
const KNOWN: u32 = 2;
const HAS_SHORTFALL: u32 = 4;
const HAS_SAVED: u32 = 8;
const HAS_COST: u32 = 16;
const FULL_OBSERVED: u32 = 32;
/// The route is the previous entry's (the same header's): no numbers follow for it.
const SAME_ROUTE: u32 = 64;
/// Some observed member is known: the five observed numbers follow (else none do).
const HAS_OBSERVED: u32 = 128;

fn optional<T: Into<f64>>(value: Option<T>) -> f64 {
    value.map_or(f64::NAN, Into::into)
}

fn flag(value: bool) -> f64 {
    f64::from(u8::from(value))
}

/// A seq as a number (seqs are safe integers).
fn seq(value: crate::input::event::Seq) -> f64 {
    value as f64
}

impl Packed {
    // One push per number, inlined: `extend_from_slice` of these short lists was a call per
    // list and about a twentieth of a ledger's time in wasm.
    #[inline]
    fn push(&mut self, values: &[f64]) {
        for value in values {
            self.numbers.push(*value);
        }
    }

    fn count(&mut self, items: usize) {
        self.numbers.push(items as f64);
    }

    fn string(&mut self, text: &str) {
        let index = self.index(text);
        self.numbers.push(index);
    }

    /// The index of `text` in `strings`, added when new.
    fn index(&mut self, text: &str) -> f64 {
        match self.texts.iter().position(|known| known == text) {
            Some(index) => index as f64,
            None => {
                self.texts.push(text.to_owned());
                f64::from(
                    self.strings
                        .push(&JsValue::from_str(text))
                        .saturating_sub(1),
                )
            }
        }
    }

    fn optional_string(&mut self, text: Option<&str>) {
        match text {
            Some(text) => self.string(text),
            None => self.numbers.push(f64::NAN),
        }
    }

    fn strings(&mut self, texts: &[String]) {
        self.count(texts.len());
        for text in texts {
            self.string(text);
        }
    }

    fn route(&mut self, route: &Route) {
        self.optional_string(route.provider.as_deref());
        self.optional_string(route.model.as_deref());
    }

    /// The provider and model indices of `route`, which becomes the last route sent.
    fn route_of(&mut self, route: &Rc<Route>) -> (f64, f64) {
        let provider = route
            .provider
            .as_deref()
            .map_or(f64::NAN, |t| self.index(t));
        let model = route.model.as_deref().map_or(f64::NAN, |t| self.index(t));
        self.last_route = Some(Rc::clone(route));
        self.last_model = model;
        (provider, model)
    }

    fn entry_numbers(
        &mut self,
        entry: &CacheEntry,
        route: Option<&Rc<Route>>,
        cost_model: Option<&str>,
    ) {
        let observed = &entry.observed;
        // In the order `src/wasm/js/ledger.js` reads them.
        let observed = [
            observed.input_tokens,
            observed.output_tokens,
            observed.cache_read_tokens,
            observed.cache_write_tokens,
            observed.uncached_input_tokens,
        ];
        let known_observed = observed.iter().flatten().count();
        let any = known_observed > 0;
        let full = known_observed == observed.len();
        let known = entry
            .kept_tokens
            .zip(entry.new_tokens)
            .zip(entry.broken_tokens);
        // Most entries read the previous entry's header: its route crosses once.
        let same_route = match (route, &self.last_route) {
            (Some(route), Some(last)) => Rc::ptr_eq(last, route),
            _ => false,
        };
        let bit = |yes: bool, bit: u32| if yes { bit } else { 0 };
        let flags = bit(route.is_some(), HAS_ROUTE)
            | bit(same_route, SAME_ROUTE)
            | bit(known.is_some(), KNOWN)
            | bit(entry.shortfall_tokens.is_some(), HAS_SHORTFALL)
            | bit(entry.saved_tokens.is_some(), HAS_SAVED)
            | bit(entry.cost.is_some(), HAS_COST)
            | bit(full, FULL_OBSERVED)
            | bit(any, HAS_OBSERVED);
        self.push(&[f64::from(flags), seq(entry.seq), seq(entry.read_seq)]);
        if let Some(route) = route.filter(|_| !same_route) {
            let (provider, model) = self.route_of(route);
            self.push(&[provider, model]);
        }
        self.push(&[
            f64::from(entry.total_tokens),
            f64::from(entry.superseded_system_tokens),
            f64::from(entry.tools_tokens),
        ]);
        if let Some(((kept, new), broken)) = known {
            self.push(&[f64::from(kept), f64::from(new), f64::from(broken)]);
        }
        if any {
            self.push(&observed.map(optional));
        }
        if let Some(shortfall) = entry.shortfall_tokens {
            self.push(&[shortfall]);
        }
        if let Some(saved) = entry.saved_tokens {
            self.push(&[f64::from(saved)]);
        }
        if let Some(cost) = &entry.cost {
            self.push(&[
                cost.input,
                cost.cache_read,
                cost.cache_write,
                cost.output,
                cost.total,
                flag(cost.estimated),
            ]);
            // A key of `prices.models` is the model of the entry's route, sent above or before.
            let model = match cost_model {
                Some(model) if route.and_then(|r| r.model.as_deref()) == Some(model) => {
                    self.last_model
                }
                Some(model) => {
                    debug_assert!(false, "a cost's model is its route's");
                    self.index(model)
                }
                None => f64::NAN,
            };
            self.numbers.push(model);
        }
    }

    fn cause(&mut self, cause: &CacheCause) {
        match cause {
            CacheCause::Route { from, to } => {
                self.push(&[0.0]);
                self.route(from);
                self.route(to);
            }
            CacheCause::Tools {
                added,
                removed,
                changed,
            } => {
                self.push(&[1.0]);
                self.strings(added);
                self.strings(removed);
                self.strings(changed);
            }
            CacheCause::SystemRewrite {
                seq: at,
                start_seq,
                end_seq,
                sections,
            } => {
                self.push(&[2.0, seq(*at), seq(*start_seq), seq(*end_seq)]);
                self.strings(sections);
            }
            CacheCause::Compaction {
                seq: at,
                start_seq,
                end_seq,
            } => self.push(&[3.0, seq(*at), seq(*start_seq), seq(*end_seq)]),
            CacheCause::Prune {
                seq: at,
                start_seq,
                end_seq,
            } => self.push(&[4.0, seq(*at), seq(*start_seq), seq(*end_seq)]),
            CacheCause::Replacement {
                seq: at,
                start_seq,
                end_seq,
                kind,
            } => {
                self.push(&[5.0, seq(*at), seq(*start_seq), seq(*end_seq)]);
                self.string(kind);
            }
            CacheCause::Series { seq: at } => self.push(&[6.0, seq(*at)]),
            CacheCause::Idle { gap_ms } => self.push(&[7.0, *gap_ms]),
        }
    }

    fn summary(&mut self, summary: &CacheSummary) {
        let observed = &summary.observed;
        let counts = &observed.counts;
        self.push(&[
            f64::from(summary.requests),
            f64::from(summary.known_requests),
            summary.total_tokens,
            summary.kept_tokens,
            summary.new_tokens,
            summary.broken_tokens,
            observed.input_tokens,
            observed.output_tokens,
            observed.cache_read_tokens,
            observed.cache_write_tokens,
            observed.uncached_input_tokens,
            f64::from(counts.input_tokens),
            f64::from(counts.output_tokens),
            f64::from(counts.cache_read_tokens),
            f64::from(counts.cache_write_tokens),
            f64::from(counts.uncached_input_tokens),
            optional(summary.expected_hit_rate),
            optional(summary.observed_hit_rate),
        ]);
        self.count(summary.breaks.len());
        for group in &summary.breaks {
            self.string(&group.kind);
            self.push(&[
                f64::from(group.requests),
                group.broken_tokens,
                optional(group.cost),
            ]);
        }
        let trade = &summary.trade;
        self.push(&[
            trade.saved_tokens,
            trade.superseded_tokens,
            optional(trade.saved_cost),
            optional(trade.carried_cost),
            optional(trade.balance),
            flag(summary.cost.is_some()),
        ]);
        if let Some(cost) = &summary.cost {
            self.push(&[cost.total, flag(cost.estimated)]);
        }
    }
}
