//! One test body for the JS API, shared by the Node suite (`tests/node.rs`) and the browser suite
//! (`tests/web.rs`): conformance cases go in as JS values through the exported classes and
//! functions, and every output comes back as a JS value, compared with the expectation.

use js_sys::{Array, Reflect, JSON};
use promptfold::wasm::{inspect_request_prompt_js, inspect_system_prompt_js, JsConversation};
use serde_json::Value;
use wasm_bindgen::{JsCast, JsValue};

/// A representative subset of the shared cases: each area of docs/BEHAVIOUR.md once, plus
/// generated logs.
pub const CASES: &[(&str, &str)] = &[
    (
        "a-b-c-trajectory",
        include_str!("../conformance/reference/a-b-c-trajectory.json"),
    ),
    (
        "chat-compaction-restore",
        include_str!("../conformance/reference/chat-compaction-restore.json"),
    ),
    (
        "chat-in-history-update-same-step-dedupe",
        include_str!("../conformance/reference/chat-in-history-update-same-step-dedupe.json"),
    ),
    (
        "chat-withheld-windowed-replacement",
        include_str!("../conformance/reference/chat-withheld-windowed-replacement.json"),
    ),
    (
        "chained-replacements-reversed-endpoints",
        include_str!("../conformance/reference/chained-replacements-reversed-endpoints.json"),
    ),
    (
        "ri-system-tools-and-combined-changes",
        include_str!("../conformance/reference/ri-system-tools-and-combined-changes.json"),
    ),
    (
        "sp-replacement-map-pruning",
        include_str!("../conformance/reference/sp-replacement-map-pruning.json"),
    ),
    (
        "sp-unknown-replacement-order-withheld",
        include_str!("../conformance/reference/sp-unknown-replacement-order-withheld.json"),
    ),
    (
        "traj-inherited-initial-change-consumed-once",
        include_str!("../conformance/reference/traj-inherited-initial-change-consumed-once.json"),
    ),
    (
        "withdraw-chat-prepend",
        include_str!("../conformance/reference/withdraw-chat-prepend.json"),
    ),
    (
        "loop-1000",
        include_str!("../conformance/generated/loop/loop-1000.json"),
    ),
    (
        "mixed-1001",
        include_str!("../conformance/generated/mixed/mixed-1001.json"),
    ),
    (
        "prepend-1027",
        include_str!("../conformance/generated/prepend/prepend-1027.json"),
    ),
    (
        "surface-1003",
        include_str!("../conformance/generated/surface/surface-1003.json"),
    ),
];

fn get(value: &JsValue, key: &str) -> JsValue {
    Reflect::get(value, &JsValue::from_str(key)).unwrap_or(JsValue::UNDEFINED)
}

/// A JS value as JSON data (`undefined` members vanish, as FORMAT.md allows for absent ones).
fn to_json(value: &JsValue) -> Value {
    if value.is_undefined() {
        return Value::Null;
    }
    let text = JSON::stringify(value)
        .ok()
        .and_then(|text| text.as_string())
        .unwrap_or_default();
    serde_json::from_str(&text).unwrap_or(Value::Null)
}

/// The first path where `actual` differs from `expected`; absent, `undefined` and `null` agree.
fn difference(actual: &Value, expected: &Value, path: &str) -> Option<String> {
    match (actual, expected) {
        (Value::Null, Value::Null) => None,
        (Value::Array(a), Value::Array(b)) => a
            .iter()
            .zip(b)
            .enumerate()
            .find_map(|(i, (x, y))| difference(x, y, &format!("{path}[{i}]")))
            .or_else(|| {
                (a.len() != b.len()).then(|| format!("{path}: length {} != {}", a.len(), b.len()))
            }),
        (Value::Object(a), Value::Object(b)) => a.keys().chain(b.keys()).find_map(|key| {
            let x = a.get(key).unwrap_or(&Value::Null);
            let y = b.get(key).unwrap_or(&Value::Null);
            difference(x, y, &format!("{path}.{key}"))
        }),
        (Value::Number(a), Value::Number(b)) if a.as_f64() == b.as_f64() => None,
        (a, b) if a == b => None,
        (a, b) => Some(format!("{path}: {a} != expected {b}")),
    }
}

struct Checker {
    case: &'static str,
    checks: usize,
    failures: Vec<String>,
}

impl Checker {
    fn check(&mut self, section: &str, actual: &JsValue, expected: &Value) {
        self.checks += 1;
        let mut actual = to_json(actual);
        // Each request's `context` is not in FORMAT.md: its parts must sum to its total, and it
        // is left out of the comparison (tests/js/context.test.mjs checks it).
        let requests = actual
            .pointer_mut("/trajectory/requests")
            .and_then(Value::as_array_mut);
        for request in requests.into_iter().flatten() {
            let context = request.as_object_mut().and_then(|r| r.remove("context"));
            let part = |name: &str| context.as_ref().and_then(|c| c[name].as_f64());
            let parts = [
                "systemTokens",
                "supersededSystemTokens",
                "toolsTokens",
                "messageTokens",
            ]
            .map(part);
            if parts.iter().map(|p| p.unwrap_or(f64::NAN)).sum::<f64>()
                != part("totalTokens").unwrap_or(-1.0)
            {
                self.failures.push(format!(
                    "{}: {section}: request context parts {parts:?}",
                    self.case
                ));
            }
        }
        if let Some(found) = difference(&actual, expected, "$") {
            self.failures
                .push(format!("{}: {section}: {found}", self.case));
        }
    }
}

fn pure_lines(events: &Array) -> Result<JsValue, JsValue> {
    let lines = Array::new();
    let mut state: JsValue = JsValue::UNDEFINED;
    let mut previous: JsValue = JsValue::UNDEFINED;
    for event in events.iter() {
        let line = js_sys::Object::new();
        Reflect::set(&line, &"seq".into(), &get(&event, "seq"))?;
        if get(&event, "type").as_string().as_deref() == Some("request/header") {
            let effective = match state.dyn_ref::<js_sys::Object>() {
                Some(_) => get(&state, "effective"),
                None => JsValue::UNDEFINED,
            };
            let request = inspect_request_prompt_js(previous.clone(), event.clone(), effective)?;
            previous = get(&request, "prompt");
            Reflect::set(&line, &"request".into(), &request)?;
        }
        state = inspect_system_prompt_js(state.clone(), event, None)?;
        let system = if state.is_undefined() {
            JsValue::NULL
        } else {
            let to_json = get(&state, "toJSON").unchecked_into::<js_sys::Function>();
            to_json.call0(&state)?
        };
        Reflect::set(&line, &"system".into(), &system)?;
        lines.push(&line);
    }
    Ok(lines.into())
}

fn run_case(name: &'static str, text: &str, checker: &mut Checker) -> Result<(), JsValue> {
    checker.case = name;
    let case: Value =
        serde_json::from_str(text).map_err(|err| JsValue::from_str(&err.to_string()))?;
    let expected = &case["expected"];
    let js_case = JSON::parse(text)?;
    let events: Array = get(&js_case, "events").unchecked_into();
    let has_more = case["hasMore"].as_bool().unwrap_or(false);

    checker.check("pure", &pure_lines(&events)?, &expected["pure"]);

    let mut loaded = JsConversation::new();
    loaded.load(events.clone().into(), load_options(has_more))?;
    checker.check("window", &loaded.lines()?, &expected["window"]);
    checker.check("final", &loaded.views()?, &expected["final"]);

    let mut live = JsConversation::new();
    for event in events.iter() {
        live.append(Array::of1(&event).into())?;
    }
    checker.check("D1 live window", &live.lines()?, &expected["window"]);
    checker.check("D1 live final", &live.views()?, &expected["final"]);

    let mut staged = JsConversation::new();
    let mut end: Option<f64> = None;
    for (i, stage) in case["stages"].as_array().into_iter().flatten().enumerate() {
        let from = stage["fromSeq"].as_f64().unwrap_or(0.0);
        let more = stage["hasMore"].as_bool().unwrap_or(false);
        let page: Array = events
            .iter()
            .filter(|event| {
                let seq = get(event, "seq").as_f64().unwrap_or(f64::NAN);
                seq >= from && end.is_none_or(|end| seq < end)
            })
            .collect();
        match end {
            None => staged.load(page.into(), load_options(more))?,
            Some(_) => staged.prepend(page.into(), load_options(more))?,
        };
        end = Some(from);
        checker.check(
            &format!("stages[{i}]"),
            &staged.views()?,
            &expected["stages"][i],
        );
    }
    Ok(())
}

/// Runs every case of [`CASES`]; panics with the failures, if any.
pub fn run_cases() {
    let mut checker = Checker {
        case: "",
        checks: 0,
        failures: Vec::new(),
    };
    for (name, text) in CASES {
        if let Err(err) = run_case(name, text, &mut checker) {
            checker.failures.push(format!("{name}: threw {err:?}"));
        }
    }
    let summary = format!(
        "wasm api: {} cases, {} checks, {} failed",
        CASES.len(),
        checker.checks,
        checker.failures.len()
    );
    wasm_bindgen_test::console_log!("{summary}");
    assert!(
        checker.failures.is_empty(),
        "{summary}\n{}",
        checker.failures.join("\n")
    );
    assert!(checker.checks >= CASES.len() * 6, "{summary}");
}

/// `{ hasMore }`, the options of `load` and `prepend`.
fn load_options(has_more: bool) -> Option<JsValue> {
    let options = js_sys::Object::new();
    js_sys::Reflect::set(&options, &"hasMore".into(), &has_more.into()).ok()?;
    Some(options.into())
}

/// Bad input through the JS API: a typed error with `code`, `index` and `seq`, window unchanged.
pub fn bad_input_leaves_window_unchanged() {
    let mut conversation = JsConversation::new();
    let events = JSON::parse(r#"[{"seq":1,"time":1,"type":"system/message","data":{"turn":1,"step":1,"message":{"content":[{"type":"text","text":"A"}]}}}]"#)
        .unwrap_or(JsValue::UNDEFINED);
    assert!(conversation.load(events, None).is_ok());
    let before = to_json(&conversation.lines().expect("lines"));
    let bad =
        JSON::parse(r#"[{"seq":2,"type":"x"},{"seq":2,"type":"x"}]"#).unwrap_or(JsValue::UNDEFINED);
    let error = conversation.append(bad).err().unwrap_or(JsValue::NULL);
    assert!(error.is_instance_of::<js_sys::Error>(), "a JS Error");
    assert_eq!(
        get(&error, "code").as_string().as_deref(),
        Some("NON_INCREASING_SEQ")
    );
    assert_eq!(get(&error, "index").as_f64(), Some(1.0));
    assert_eq!(get(&error, "seq").as_f64(), Some(2.0));
    let error = conversation
        .load_json(JsValue::from_str("[{"), None)
        .err()
        .unwrap_or(JsValue::NULL);
    assert_eq!(
        get(&error, "code").as_string().as_deref(),
        Some("MALFORMED_JSON")
    );
    assert_eq!(to_json(&conversation.lines().expect("lines")), before);
    let state = conversation.state_at(1.0);
    assert_eq!(get(&state, "uncertain").as_bool(), Some(false));
}

/// Numbers in the wasm build go through JavaScript's own conversions (`parseFloat` for decimal
/// text off the exact fast path, `Number.prototype.toString` for writing): check both against
/// the engine's `JSON.parse` and `JSON.stringify`.
pub fn numbers_match_the_engine() {
    for text in [
        "0.1",
        "1e23",
        "1e-23",
        "9007199254740993",
        "123456789012345678901234567890",
        "1e400",
        "-2.2250738585072014e-308",
        "5e-324",
        "0.30000000000000004",
        "1.7976931348623157e308",
        "4.35",
        "-0",
    ] {
        let ours = promptfold::JsonValue::parse(text)
            .ok()
            .and_then(|value| value.as_f64());
        let engine = JSON::parse(text).ok().and_then(|value| value.as_f64());
        assert_eq!(
            ours.map(f64::to_bits),
            engine.map(f64::to_bits),
            "parsing {text}"
        );
        let value = engine.unwrap_or(f64::NAN);
        let written = JSON::stringify(&JsValue::from_f64(value))
            .ok()
            .and_then(|text| text.as_string());
        assert_eq!(
            Some(promptfold::wasm::js_number_text(value)),
            written,
            "writing {text}"
        );
    }
}
