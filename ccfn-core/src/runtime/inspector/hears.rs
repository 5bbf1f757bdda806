//! Voice markup read for people: indented XML, and what the caller hears
//! and does, verb by verb.

use std::fmt::Write as _;

use roxmltree::{Document, Node};

use crate::text::xml::{escape_attr, escape_text};

/// One thing the call does, with what it leads to and what happens
/// inside it (a menu's prompts).
#[derive(Debug, PartialEq)]
pub(super) struct Heard {
    /// The verb, as written (`Say`, `Gather`...).
    pub(super) verb: String,
    /// What the caller hears or what happens, in words.
    pub(super) text: String,
    /// The URL the call goes to next, or where a result is sent.
    pub(super) leads_to: Option<String>,
    /// A menu's choices, as its prompts say them: key and what it does.
    pub(super) choices: Vec<(String, String)>,
    /// What happens inside this verb, in order.
    pub(super) inner: Vec<Heard>,
}

/// The document, indented two spaces per level, one element or comment
/// per line (comments before and after the response included: they are
/// part of the document, though the caller hears none of them).
///
/// # Errors
/// The document is not well-formed XML; the parser's message.
pub(super) fn pretty(twiml: &str) -> Result<String, String> {
    let document = Document::parse(twiml).map_err(|e| e.to_string())?;
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    for node in document.root().children() {
        if node.is_element() {
            write_element(node, 0, &mut out);
        } else if node.is_comment() {
            write_comment(node, "", &mut out);
        }
    }
    Ok(out)
}

/// A comment on a line of its own. XML keeps `--` out of its text, so
/// it cannot close early.
fn write_comment(node: Node<'_, '_>, indent: &str, out: &mut String) {
    let _ = writeln!(out, "{indent}<!--{}-->", node.text().unwrap_or(""));
}

/// How deep the readings go: the platform's markup nests a few levels;
/// a document nested deeper is cut there rather than read by a recursion
/// as deep as it.
const MAX_DEPTH: usize = 32;

fn write_element(node: Node<'_, '_>, depth: usize, out: &mut String) {
    let indent = "  ".repeat(depth);
    if depth >= MAX_DEPTH {
        let _ = writeln!(
            out,
            "{indent}… (nested deeper than {MAX_DEPTH} levels, not shown)"
        );
        return;
    }
    let _ = write!(out, "{indent}<{}", node.tag_name().name());
    for attribute in node.attributes() {
        let _ = write!(out, " {}=\"", attribute.name());
        escape_attr(attribute.value(), out);
        out.push('"');
    }
    let children: Vec<_> = node
        .children()
        .filter(|child| child.is_element() || child.is_text() || child.is_comment())
        .collect();
    match children.as_slice() {
        [] => out.push_str("/>\n"),
        [only] if only.is_text() => {
            out.push('>');
            escape_text(only.text().unwrap_or(""), out);
            let _ = writeln!(out, "</{}>", node.tag_name().name());
        }
        _ => {
            out.push_str(">\n");
            for child in children {
                if child.is_element() {
                    write_element(child, depth + 1, out);
                } else if child.is_comment() {
                    write_comment(child, &format!("{indent}  "), out);
                } else if let Some(text) = child.text().map(str::trim).filter(|t| !t.is_empty()) {
                    let _ = write!(out, "{indent}  ");
                    escape_text(text, out);
                    out.push('\n');
                }
            }
            let _ = writeln!(out, "{indent}</{}>", node.tag_name().name());
        }
    }
}

/// What the caller hears and does, verb by verb, with a last line when
/// the document ends without sending the call anywhere.
///
/// # Errors
/// The document is not well-formed XML; the parser's message.
pub(super) fn hears(twiml: &str) -> Result<Vec<Heard>, String> {
    let document = Document::parse(twiml).map_err(|e| e.to_string())?;
    let root = document.root_element();
    let mut heard: Vec<Heard> = root
        .children()
        .filter(Node::is_element)
        .map(|node| verb(node, 1))
        .collect();
    let moves_on = heard.last().is_some_and(|last| {
        matches!(
            last.verb.as_str(),
            "Hangup" | "Reject" | "Redirect" | "Enqueue" | "Leave"
        )
    });
    if !moves_on {
        heard.push(Heard {
            verb: String::new(),
            text: "The document ends: the call hangs up, or goes on to the flow's next widget when a widget called this function".to_owned(),
            leads_to: None,
            choices: Vec::new(),
            inner: Vec::new(),
        });
    }
    Ok(heard)
}

/// What one verb does, and what happens inside it: a reading per verb
/// of the platform's markup, and the element as written for any other.
fn verb(node: Node<'_, '_>, depth: usize) -> Heard {
    let name = node.tag_name().name();
    let verb = Verb {
        node,
        depth,
        text: node
            .children()
            .filter(Node::is_text)
            .filter_map(|t| t.text())
            .collect::<String>()
            .trim()
            .to_owned(),
    };
    let (attr, text) = (|key: &str| verb.attr(key), &verb.text);
    let mut heard = Heard {
        verb: name.to_owned(),
        text: String::new(),
        leads_to: None,
        choices: Vec::new(),
        inner: Vec::new(),
    };
    heard.text = match name {
        "Say" => said(&verb),
        "Play" => played(&verb),
        "Pause" => format!("Hears silence for {} s", attr("length").unwrap_or("1")),
        "Gather" => gathered(&verb, &mut heard),
        "Record" => recorded(&verb, &mut heard),
        "Enqueue" => enqueued(&verb, &mut heard),
        "Task" => format!("A task is created with the attributes {text}"),
        "Dial" => dialed(&verb, &mut heard),
        "Redirect" => {
            heard.leads_to = Some(text.clone());
            "The call leaves this document for the address below".to_owned()
        }
        "Hangup" => "The call hangs up".to_owned(),
        "Reject" => format!(
            "The call is rejected ({})",
            attr("reason").unwrap_or("rejected")
        ),
        "Leave" => "The caller leaves the queue".to_owned(),
        "Sms" | "Message" => format!("A text message is sent: “{text}”"),
        "Connect" => {
            heard.leads_to = attr("action").map(str::to_owned);
            format!("The call is connected to {}", nouns(node))
        }
        "Start" => format!("Starts in the background: {}", nouns(node)),
        "Stop" => format!("Stops: {}", nouns(node)),
        "Pay" => paid(&verb, &mut heard),
        "Refer" => {
            heard.leads_to = attr("action").map(str::to_owned);
            format!("The call is transferred by SIP REFER to {}", nouns(node))
        }
        "Echo" => "The caller hears their own voice back".to_owned(),
        "Queue" => format!("The call is connected to the first caller waiting in “{text}”"),
        other => {
            let attributes: Vec<_> = node
                .attributes()
                .map(|a| format!("{}={}", a.name(), a.value()))
                .collect();
            format!("<{other}> {}", attributes.join(" "))
                .trim_end()
                .to_owned()
        }
    };
    heard
}

/// A verb's element, as the readings of its kind ask about it.
struct Verb<'a, 'input> {
    node: Node<'a, 'input>,
    /// How deep it is in the document.
    depth: usize,
    /// Its own text (its children's not included), trimmed.
    text: String,
}

impl Verb<'_, '_> {
    /// The attribute `key`, trimmed; `None` when absent or blank.
    fn attr(&self, key: &str) -> Option<&str> {
        self.node
            .attribute(key)
            .map(str::trim)
            .filter(|v| !v.is_empty())
    }

    /// What happens inside the verb, nothing past [`MAX_DEPTH`].
    fn inner(&self) -> Vec<Heard> {
        if self.depth >= MAX_DEPTH {
            return Vec::new();
        }
        self.node
            .children()
            .filter(Node::is_element)
            .map(|child| verb(child, self.depth + 1))
            .collect()
    }
}

/// `<Say>`: the words, spaces tidied, and the voice and language.
fn said(verb: &Verb<'_, '_>) -> String {
    let spoken = verb
        .node
        .descendants()
        .filter(Node::is_text)
        .filter_map(|t| t.text())
        .collect::<String>();
    let mut said = format!(
        "Hears “{}”",
        spoken.split_whitespace().collect::<Vec<_>>().join(" ")
    );
    let voice: Vec<_> = [verb.attr("voice"), verb.attr("language")]
        .into_iter()
        .flatten()
        .collect();
    if !voice.is_empty() {
        let _ = write!(said, " ({})", voice.join(", "));
    }
    said
}

/// `<Play>`: keys sent, or the audio and how many times.
fn played(verb: &Verb<'_, '_>) -> String {
    let text = &verb.text;
    match (verb.attr("digits"), text.is_empty()) {
        (Some(digits), _) => format!("The call sends the keys {digits}"),
        (None, false) => {
            let times = match verb.attr("loop") {
                Some("0") => " over and over".to_owned(),
                Some(n) if n != "1" => format!(" {n} times"),
                _ => String::new(),
            };
            format!("Hears the audio {text}{times}")
        }
        (None, true) => "Hears nothing (a Play without audio)".to_owned(),
    }
}

/// `<Gather>`: how the caller answers and where the answer goes; its
/// prompts go in `heard`, and the menu they say.
fn gathered(verb: &Verb<'_, '_>, heard: &mut Heard) -> String {
    let attr = |key: &str| verb.attr(key);
    let input = match attr("input").unwrap_or("dtmf") {
        "dtmf" => "keys",
        "speech" => "speech",
        _ => "keys or speech",
    };
    let mut how = Vec::new();
    if let Some(digits) = attr("numDigits") {
        how.push(format!(
            "up to {digits} key{}",
            if digits == "1" { "" } else { "s" }
        ));
    }
    if let Some(key) = attr("finishOnKey") {
        how.push(format!("ended by {key}"));
    }
    how.push(format!("waits {} s", attr("timeout").unwrap_or("5")));
    heard.leads_to = attr("action").map(str::to_owned);
    heard.inner = verb.inner();
    heard.choices = heard
        .inner
        .iter()
        .filter(|inner| inner.verb == "Say")
        .flat_map(|say| menu_choices(&say.text))
        .collect();
    format!(
        "The caller can answer with {input} ({}); the answer is sent to {}; with no answer the call goes on to the next verb",
        how.join(", "),
        if heard.leads_to.is_some() { "the address below" } else { "this same address" }
    )
}

/// `<Record>`: how the message is recorded and where it is announced.
fn recorded(verb: &Verb<'_, '_>, heard: &mut Heard) -> String {
    let attr = |key: &str| verb.attr(key);
    let mut how = vec![format!("up to {} s", attr("maxLength").unwrap_or("3600"))];
    if attr("playBeep") != Some("false") {
        how.push("after a beep".to_owned());
    }
    if let Some(key) = attr("finishOnKey") {
        how.push(format!("ended by {key}"));
    }
    heard.leads_to = attr("action").map(str::to_owned);
    let mut said = format!("The caller's message is recorded ({})", how.join(", "));
    if let Some(status) = attr("recordingStatusCallback") {
        let _ = write!(said, "; the finished recording is announced to {status}");
    }
    said
}

/// `<Enqueue>`: the queue, its workflow and what the caller hears.
fn enqueued(verb: &Verb<'_, '_>, heard: &mut Heard) -> String {
    let attr = |key: &str| verb.attr(key);
    let queue = if verb.text.is_empty() {
        "(unnamed)"
    } else {
        &verb.text
    };
    let mut said = format!("The caller waits in the queue “{queue}”");
    if let Some(workflow) = attr("workflowSid") {
        let _ = write!(said, ", routed by the workflow {workflow}");
    }
    if let Some(wait) = attr("waitUrl") {
        let _ = write!(said, ", hearing what {wait} returns");
    }
    heard.leads_to = attr("action").map(str::to_owned);
    heard.inner = verb.inner();
    said
}

/// `<Dial>`: who the call is connected to, noun by noun.
fn dialed(verb: &Verb<'_, '_>, heard: &mut Heard) -> String {
    let to: Vec<_> = verb
        .node
        .children()
        .filter(Node::is_element)
        .map(|noun| {
            let value = noun.text().unwrap_or("").trim();
            format!("{} {value}", noun.tag_name().name().to_ascii_lowercase())
        })
        .collect();
    heard.leads_to = verb.attr("action").map(str::to_owned);
    let to = if to.is_empty() {
        verb.text.clone()
    } else {
        to.join(", ")
    };
    format!("The call is connected to {to}")
}

/// `<Pay>`: the charge, or a token without one.
fn paid(verb: &Verb<'_, '_>, heard: &mut Heard) -> String {
    heard.leads_to = verb.attr("action").map(str::to_owned);
    match verb.attr("chargeAmount") {
        Some(amount) => format!(
            "The caller is asked to pay {amount} {}",
            verb.attr("currency").unwrap_or("usd")
        ),
        None => "The caller is asked for payment details (a token, no charge)".to_owned(),
    }
}

/// What a verb holds, one noun each: its tag in lower case and what
/// names it (its text, or its `name`, `url` or `connectorName`):
/// "stream live wss://media.example.com, transcription".
fn nouns(node: Node<'_, '_>) -> String {
    let nouns: Vec<String> = node
        .children()
        .filter(Node::is_element)
        .map(|noun| {
            let text = noun.text().unwrap_or("").trim();
            let names = ["name", "url", "connectorName"]
                .into_iter()
                .filter_map(|key| noun.attribute(key))
                .chain(Some(text).filter(|t| !t.is_empty()));
            let mut described = noun.tag_name().name().to_ascii_lowercase();
            for name in names {
                described.push(' ');
                described.push_str(name);
            }
            described
        })
        .collect();
    if nouns.is_empty() {
        "nothing".to_owned()
    } else {
        nouns.join(", ")
    }
}

/// The choices a menu's prompt says, in either order: "Press 1 to leave
/// a voicemail, or 2 to request a callback" and "To leave a voicemail,
/// press 1" both give `1` and what it does.
fn menu_choices(prompt: &str) -> Vec<(String, String)> {
    let mut choices = Vec::new();
    for clause in prompt.split(['.', ';', '!', '?', '\n']) {
        let lower = clause.to_ascii_lowercase();
        for (start, _) in lower.match_indices("press ") {
            // "Express" is no "press".
            if lower[..start].ends_with(|c: char| c.is_alphanumeric()) {
                continue;
            }
            let after = &clause[start + "press ".len()..];
            let before_count = choices.len();
            keys_then_words(after, &mut choices);
            if choices.len() == before_count {
                words_then_key(&clause[..start], after, &mut choices);
            }
        }
    }
    choices
}

/// The key a text starts with (`1`, `*`, `#`, `12`), and the rest.
fn key(text: &str) -> Option<(&str, &str)> {
    let text = text.trim_start();
    let len = text
        .find(|c: char| !(c.is_ascii_digit() || c == '*' || c == '#'))
        .unwrap_or(text.len());
    (len > 0).then(|| (&text[..len], &text[len..]))
}

/// "1 to leave a voicemail, or 2 to request a callback".
fn keys_then_words(mut rest: &str, choices: &mut Vec<(String, String)>) {
    loop {
        rest = rest.trim_start();
        for joiner in ["or ", "and "] {
            if rest.to_ascii_lowercase().starts_with(joiner) {
                rest = rest[joiner.len()..].trim_start();
            }
        }
        let Some((key, after)) = key(rest) else {
            return;
        };
        let after = after.trim_start();
        let Some(what) = ["to ", "for "].iter().find_map(|word| {
            after
                .to_ascii_lowercase()
                .starts_with(word)
                .then(|| &after[word.len()..])
        }) else {
            return;
        };
        let end = phrase_end(what);
        choices.push((key.to_owned(), what[..end].trim().to_owned()));
        rest = what[end..].trim_start_matches([',', ';', '!']);
    }
}

/// "To leave a voicemail, press 1": the words before, the key after.
fn words_then_key(before: &str, after: &str, choices: &mut Vec<(String, String)>) {
    let Some((key, _)) = key(after) else {
        return;
    };
    let before = before.trim_end().trim_end_matches(',').trim_end();
    // After the last "to" or "for" (as a word), up to the press.
    let lower = before.to_ascii_lowercase();
    let start = ["to ", "for "]
        .iter()
        .filter_map(|word| {
            lower
                .match_indices(word)
                .filter(|(at, _)| {
                    *at == 0 || lower[..*at].ends_with(|c: char| !c.is_alphanumeric())
                })
                .map(|(at, _)| at + word.len())
                .last()
        })
        .max();
    if let Some(start) = start {
        let what = before[start..].trim();
        if !what.is_empty() {
            choices.push((key.to_owned(), what.to_owned()));
        }
    }
}

/// Where a choice's words end: at punctuation, or where "or" or "and"
/// brings the next key.
fn phrase_end(what: &str) -> usize {
    let punctuation = what.find([',', ';', '!']).unwrap_or(what.len());
    let is_key = |c: char| c.is_ascii_digit() || c == '*' || c == '#';
    [" or ", " and "]
        .iter()
        .flat_map(|joiner| {
            what.match_indices(joiner)
                .filter(|(at, _)| what[at + joiner.len()..].starts_with(is_key))
                .map(|(at, _)| at)
        })
        .chain([punctuation])
        .min()
        .unwrap_or(punctuation)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MENU: &str = r#"<?xml version="1.0" encoding="UTF-8"?><Response><Gather input="dtmf" numDigits="1" timeout="5" action="/features/f/studio/wait-experience" method="POST"><Say>All of our agents are busy. Press 1 to leave a voicemail, or 2 to request a callback.</Say></Gather><Say>Please hold.</Say><Redirect method="POST">/features/f/studio/wait-experience</Redirect></Response>"#;

    #[test]
    fn the_verbs_beyond_a_menu_say_what_they_do() {
        let mut twiml = crate::voice::VoiceResponse::new();
        twiml
            .start()
            .stream()
            .name("live")
            .url("wss://media.example.com");
        twiml
            .pay()
            .charge_amount("10.00")
            .currency("eur")
            .action("/paid");
        twiml
            .refer()
            .action("/referred")
            .sip("sip:agent@pbx.example.com");
        twiml.echo();
        twiml.queue("support");
        twiml.stop().stream().name("live");
        twiml
            .connect()
            .action("/after")
            .conversation_relay()
            .url("wss://bot.example.com");
        let heard: Vec<(String, Option<String>)> = hears(&twiml.to_xml())
            .unwrap()
            .into_iter()
            .map(|heard| (heard.text, heard.leads_to))
            .collect();
        let at = |path: &str| Some(path.to_owned());
        assert_eq!(
            heard,
            [
                ("Starts in the background: stream live wss://media.example.com".to_owned(), None),
                ("The caller is asked to pay 10.00 eur".to_owned(), at("/paid")),
                (
                    "The call is transferred by SIP REFER to sip sip:agent@pbx.example.com".to_owned(),
                    at("/referred")
                ),
                ("The caller hears their own voice back".to_owned(), None),
                ("The call is connected to the first caller waiting in “support”".to_owned(), None),
                ("Stops: stream live".to_owned(), None),
                (
                    "The call is connected to conversationrelay wss://bot.example.com".to_owned(),
                    at("/after")
                ),
                (
                    "The document ends: the call hangs up, or goes on to the flow's next widget when a widget called this function".to_owned(),
                    None
                ),
            ]
        );
    }

    #[test]
    fn a_menu_reads_as_its_prompt_choices_and_where_they_lead() {
        let heard = hears(MENU).unwrap();
        assert_eq!(heard.len(), 3);
        let gather = &heard[0];
        assert_eq!(gather.verb, "Gather");
        assert!(
            gather
                .text
                .starts_with("The caller can answer with keys (up to 1 key, waits 5 s)"),
            "{}",
            gather.text
        );
        assert_eq!(
            gather.leads_to.as_deref(),
            Some("/features/f/studio/wait-experience")
        );
        assert_eq!(
            gather.choices,
            [
                ("1".to_owned(), "leave a voicemail".to_owned()),
                ("2".to_owned(), "request a callback".to_owned())
            ]
        );
        assert_eq!(gather.inner[0].text, "Hears “All of our agents are busy. Press 1 to leave a voicemail, or 2 to request a callback.”");
        assert_eq!(heard[1].text, "Hears “Please hold.”");
        assert_eq!(
            heard[2].leads_to.as_deref(),
            Some("/features/f/studio/wait-experience")
        );
    }

    #[test]
    fn a_document_that_sends_the_call_nowhere_says_so() {
        let heard =
            hears("<Response><Say voice=\"alice\">Bye &amp; thanks</Say></Response>").unwrap();
        assert_eq!(heard[0].text, "Hears “Bye & thanks” (alice)");
        assert!(heard[1].text.starts_with("The document ends"));
        let heard = hears("<Response><Say>Bye</Say><Hangup/></Response>").unwrap();
        assert_eq!(heard.len(), 2);
        assert_eq!(heard[1].text, "The call hangs up");
    }

    #[test]
    fn a_recording_and_a_queue_say_where_they_lead() {
        let heard = hears(r##"<Response><Record action="/done" maxLength="120" finishOnKey="#" recordingStatusCallback="/notice?From=%2B1"/><Enqueue workflowSid="WW1"><Task>{"a":1}</Task></Enqueue></Response>"##).unwrap();
        assert_eq!(heard[0].text, "The caller's message is recorded (up to 120 s, after a beep, ended by #); the finished recording is announced to /notice?From=%2B1");
        assert_eq!(heard[0].leads_to.as_deref(), Some("/done"));
        assert_eq!(
            heard[1].text,
            "The caller waits in the queue “(unnamed)”, routed by the workflow WW1"
        );
        assert_eq!(
            heard[1].inner[0].text,
            "A task is created with the attributes {\"a\":1}"
        );
    }

    #[test]
    fn pretty_indents_and_keeps_every_character() {
        let pretty = pretty("<Response><Say a=\"x&quot;&#10;y\">1 &lt; 2 &amp;\tgo</Say><Gather><Say>in</Say></Gather><Hangup/></Response>").unwrap();
        assert_eq!(
            pretty,
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Response>\n  <Say a=\"x&quot;&#xA;y\">1 &lt; 2 &amp;\tgo</Say>\n  <Gather>\n    <Say>in</Say>\n  </Gather>\n  <Hangup/>\n</Response>\n"
        );
    }

    /// Comments as the voice builders write them (before the response,
    /// inside it, after it) are shown where they are; the caller hears
    /// none of them.
    #[test]
    fn comments_are_shown_where_they_are_and_not_heard() {
        let mut twiml = crate::voice::VoiceResponse::new();
        twiml.comment_before("built by ccfn");
        twiml.comment("the menu follows");
        twiml.say("Hello");
        twiml.comment_after("end of the menu");
        let xml = twiml.to_xml();
        assert_eq!(
            pretty(&xml).unwrap(),
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!-- built by ccfn -->\n<Response>\n  <!-- the menu follows -->\n  <Say>Hello</Say>\n</Response>\n<!-- end of the menu -->\n"
        );
        let heard = hears(&xml).unwrap();
        assert!(
            heard.iter().all(|verb| !verb.text.contains("menu follows")),
            "{heard:?}"
        );
    }

    #[test]
    fn broken_markup_is_an_error_not_a_panic() {
        assert!(hears("<Response><Say>").is_err());
        assert!(pretty("").is_err());
    }

    #[test]
    fn menu_choices_in_either_order() {
        assert_eq!(
            menu_choices(
                "To leave a voicemail, press 1. For a callback press 2. Express 3 to nowhere."
            ),
            [
                ("1".to_owned(), "leave a voicemail".to_owned()),
                ("2".to_owned(), "a callback".to_owned())
            ]
        );
    }

    #[test]
    fn deep_markup_is_cut_not_recursed_into() {
        let deep = format!(
            "<Response>{}{}</Response>",
            "<Gather>".repeat(5000),
            "</Gather>".repeat(5000)
        );
        if let Ok(pretty) = pretty(&deep) {
            assert!(pretty.contains("nested deeper than"));
        }
        if let Ok(heard) = hears(&deep) {
            assert_eq!(heard[0].verb, "Gather");
        }
    }

    #[test]
    fn menu_choices_stop_at_what_is_not_a_choice() {
        assert_eq!(menu_choices("Press the pound key when done."), []);
        assert_eq!(
            menu_choices("For sales press 1 for sales and 2 for support; press * to repeat."),
            [
                ("1".to_owned(), "sales".to_owned()),
                ("2".to_owned(), "support".to_owned()),
                ("*".to_owned(), "repeat".to_owned())
            ]
        );
    }
}
