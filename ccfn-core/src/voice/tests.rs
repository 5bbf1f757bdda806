//! Unit tests of the voice markup builder.

#![cfg(test)]

use super::*;

const DECL: &str = r#"<?xml version="1.0" encoding="UTF-8"?>"#;

fn doc(body: &str) -> String {
    format!("{DECL}<Response>{body}</Response>")
}

#[test]
fn empty_response() {
    let twiml = VoiceResponse::new();
    assert!(twiml.is_empty());
    assert_eq!(twiml.to_xml(), format!("{DECL}<Response/>"));
    assert_eq!(twiml.to_string(), twiml.to_xml());
    assert_eq!(twiml, VoiceResponse::default());
}

#[test]
fn text_escaping_exact() {
    let mut twiml = VoiceResponse::new();
    twiml.say(r#"a & b < c > d "e" 'f'"#);
    assert_eq!(
        twiml.to_xml(),
        doc(r#"<Say>a &amp; b &lt; c &gt; d "e" 'f'</Say>"#)
    );
}

#[test]
fn attribute_escaping_exact() {
    let mut twiml = VoiceResponse::new();
    twiml.redirect("/next").method(Method::Get);
    twiml.say("x").voice(r#"a & b < c > d "e" 'f'"#);
    assert_eq!(
        twiml.to_xml(),
        doc(concat!(
            r#"<Redirect method="GET">/next</Redirect>"#,
            r#"<Say voice="a &amp; b &lt; c > d &quot;e&quot; 'f'">x</Say>"#,
        ))
    );
}

#[test]
fn whitespace_and_invalid_characters() {
    let mut twiml = VoiceResponse::new();
    twiml
        .say("l1\r\nl2\tend\u{0}\u{1b}\u{FFFF}")
        .language("a\tb\nc\rd");
    assert_eq!(
        twiml.to_xml(),
        doc("<Say language=\"a&#x9;b&#xA;c&#xD;d\">l1&#xD;\nl2\tend\u{FFFD}\u{FFFD}\u{FFFD}</Say>")
    );
}

#[test]
fn characters_next_to_the_invalid_ones_are_kept() {
    let kept = "\u{7f}\u{FFFD}\u{FFBF}\u{EFFF}\u{E000}\u{10FFFF}é";
    let mut twiml = VoiceResponse::new();
    twiml.say(format!("{kept}\u{FFFE}")).voice(kept);
    assert_eq!(
        twiml.to_xml(),
        doc(&format!("<Say voice=\"{kept}\">{kept}\u{FFFD}</Say>"))
    );
}

#[test]
fn non_ascii_text_is_kept() {
    let mut twiml = VoiceResponse::new();
    twiml.say("Grüß dich & 日本 🚀").language("de-DE");
    assert_eq!(
        twiml.to_xml(),
        doc(r#"<Say language="de-DE">Grüß dich &amp; 日本 🚀</Say>"#)
    );
}

#[test]
fn nested_gather() {
    let mut twiml = VoiceResponse::new();
    let gather = twiml.gather();
    gather
        .input(GatherInput::Speech)
        .speech_timeout(SpeechTimeout::Auto)
        .hints("sales, support")
        .action_on_empty_result(true);
    gather.say("Say sales or support.").loop_(2);
    gather.pause().length(1);
    gather.play_url("https://example.com/beep.mp3");
    twiml.say("Goodbye");
    assert_eq!(
        twiml.to_xml(),
        doc(concat!(
            r#"<Gather input="speech" speechTimeout="auto" hints="sales, support" actionOnEmptyResult="true">"#,
            r#"<Say loop="2">Say sales or support.</Say>"#,
            r#"<Pause length="1"/>"#,
            r#"<Play>https://example.com/beep.mp3</Play>"#,
            r#"</Gather>"#,
            r#"<Say>Goodbye</Say>"#,
        ))
    );
}

#[test]
fn empty_gather_and_empty_text_are_self_closing() {
    let mut twiml = VoiceResponse::new();
    twiml.gather().timeout(3).speech_timeout(4);
    twiml.play().digits("ww1");
    assert_eq!(
        twiml.to_xml(),
        doc(r#"<Gather timeout="3" speechTimeout="4"/><Play digits="ww1"/>"#)
    );
}

#[test]
fn enqueue_task_json_value_is_escaped_as_text() {
    let mut twiml = VoiceResponse::new();
    let json = serde_json::json!({ "note": "a \"b\" & <c>" });
    twiml
        .enqueue()
        .workflow_sid("WW123")
        .task(&json)
        .priority(5)
        .timeout(30);
    assert_eq!(
        twiml.to_xml(),
        doc(concat!(
            r#"<Enqueue workflowSid="WW123">"#,
            r#"<Task priority="5" timeout="30">{"note":"a \"b\" &amp; &lt;c&gt;"}</Task>"#,
            r#"</Enqueue>"#,
        ))
    );
}

#[test]
fn enqueue_tasks_are_written_as_given_in_call_order() {
    let mut twiml = VoiceResponse::new();
    let enqueue = twiml.enqueue_name("support");
    enqueue
        .wait_url("/hold?music=1&x=2")
        .wait_url_method(Method::Get);
    enqueue.task("first").priority(9);
    enqueue.task(String::from(r#"{"skill": "billing"}"#));
    assert_eq!(
        twiml.to_xml(),
        doc(concat!(
            r#"<Enqueue waitUrl="/hold?music=1&amp;x=2" waitUrlMethod="GET">support"#,
            r#"<Task priority="9">first</Task><Task>{"skill": "billing"}</Task></Enqueue>"#,
        ))
    );
}

#[test]
fn task_body_conversions() {
    let value = serde_json::json!({ "a": [1, true, null] });
    assert_eq!(TaskBody::from(&value).as_str(), r#"{"a":[1,true,null]}"#);
    assert_eq!(TaskBody::from(value).as_str(), r#"{"a":[1,true,null]}"#);
    assert_eq!(TaskBody::from("{ }").as_str(), "{ }");
}

#[test]
fn attribute_replacement_keeps_position() {
    let mut twiml = VoiceResponse::new();
    twiml
        .say("hi")
        .voice("man")
        .language("en-US")
        .loop_(1)
        .voice("alice")
        .loop_(3);
    assert_eq!(
        twiml.to_xml(),
        doc(r#"<Say voice="alice" language="en-US" loop="3">hi</Say>"#)
    );
}

#[test]
fn numbers_and_fixed_values_are_written_and_compared_as_their_text() {
    let mut typed = VoiceResponse::new();
    typed
        .gather()
        .num_digits(0)
        .timeout(4_294_967_295)
        .speech_timeout(10)
        .action_on_empty_result(true)
        .method(Method::Post)
        .input(GatherInput::Speech);
    typed
        .gather()
        .speech_timeout(SpeechTimeout::Auto)
        .num_digits(7);
    let mut generic = VoiceResponse::new();
    generic
        .gather()
        .attr("numDigits", "0")
        .attr("timeout", "4294967295")
        .attr("speechTimeout", "10")
        .attr("actionOnEmptyResult", "true")
        .attr("method", "POST")
        .attr("input", "speech");
    generic
        .gather()
        .attr("speechTimeout", "auto")
        .attr("numDigits", "7");
    assert_eq!(
        typed.to_xml(),
        doc(concat!(
            r#"<Gather numDigits="0" timeout="4294967295" speechTimeout="10" actionOnEmptyResult="true" method="POST" input="speech"/>"#,
            r#"<Gather speechTimeout="auto" numDigits="7"/>"#,
        ))
    );
    assert_eq!(typed.to_xml(), generic.to_xml());
    assert_eq!(typed, generic);
    generic.gather().num_digits(12);
    assert_ne!(typed, generic);
}

#[test]
fn typed_enums() {
    assert_eq!(Method::Get.as_str(), "GET");
    assert_eq!(Method::Post.as_str(), "POST");
    assert_eq!(GatherInput::Dtmf.as_str(), "dtmf");
    assert_eq!(GatherInput::Speech.as_str(), "speech");
    assert_eq!(RejectReason::Rejected.as_str(), "rejected");
    assert_eq!(RejectReason::Busy.as_str(), "busy");
    assert_eq!(Trim::TrimSilence.as_str(), "trim-silence");
    assert_eq!(Trim::DoNotTrim.as_str(), "do-not-trim");
    assert_eq!(
        DialRecord::RecordFromAnswerDual.as_str(),
        "record-from-answer-dual"
    );
    assert_eq!(SpeechTimeout::from(7), SpeechTimeout::Seconds(7));

    let mut twiml = VoiceResponse::new();
    twiml.reject().reason(RejectReason::Busy);
    twiml
        .record()
        .trim(Trim::DoNotTrim)
        .play_beep(false)
        .method(Method::Post);
    twiml
        .dial()
        .record(DialRecord::RecordFromRinging)
        .hangup_on_star(false);
    assert_eq!(
        twiml.to_xml(),
        doc(concat!(
            r#"<Reject reason="busy"/>"#,
            r#"<Record trim="do-not-trim" playBeep="false" method="POST"/>"#,
            r#"<Dial record="record-from-ringing" hangupOnStar="false"/>"#,
        ))
    );
}

#[test]
fn dial_nouns_and_text() {
    let mut twiml = VoiceResponse::new();
    twiml
        .dial_number("+15551230000")
        .caller_id("+15550001111")
        .time_limit(600);
    let dial = twiml.dial();
    dial.action("/after-dial").method(Method::Post);
    dial.number("+15551234567")
        .send_digits("ww12")
        .status_callback_event([CallEvent::Initiated, CallEvent::Answered]);
    dial.client_identity("agent_42").url("/whisper");
    dial.queue("support").reservation_sid("WR1");
    dial.sip_url("sip:bob@example.com;transport=tls")
        .username("bob")
        .password("p\"w&");
    twiml.leave();
    twiml.hangup();
    assert_eq!(
        twiml.to_xml(),
        doc(concat!(
            r#"<Dial callerId="+15550001111" timeLimit="600">+15551230000</Dial>"#,
            r#"<Dial action="/after-dial" method="POST">"#,
            r#"<Number sendDigits="ww12" statusCallbackEvent="initiated answered">+15551234567</Number>"#,
            r#"<Client url="/whisper">agent_42</Client>"#,
            r#"<Queue reservationSid="WR1">support</Queue>"#,
            r#"<Sip username="bob" password="p&quot;w&amp;">sip:bob@example.com;transport=tls</Sip>"#,
            r#"</Dial><Leave/><Hangup/>"#,
        ))
    );
}

#[test]
fn clone_and_equality() {
    let mut a = VoiceResponse::new();
    a.say("hi").voice("alice");
    let mut b = a.clone();
    assert_eq!(a, b);
    b.hangup();
    assert_ne!(a, b);
    assert!(!a.is_empty());
}

#[test]
fn lists_take_one_value_or_several() {
    let mut twiml = VoiceResponse::new();
    let dial = twiml.dial();
    dial.number("1").status_callback_event(CallEvent::Ringing);
    dial.number("2")
        .status_callback_event([CallEvent::Initiated, CallEvent::Completed]);
    dial.number("3")
        .status_callback_event(vec![CallEvent::Answered]);
    dial.number("4")
        .status_callback_event(&[CallEvent::Answered, CallEvent::Ringing][..]);
    // An empty list is an empty attribute, as the helper writes `[]`.
    dial.number("5").status_callback_event([] as [CallEvent; 0]);
    twiml
        .prompt()
        .attempt([1, 3])
        .error_type(PromptErrorType::Timeout);
    assert_eq!(
        twiml.to_xml(),
        doc(concat!(
            r#"<Dial><Number statusCallbackEvent="ringing">1</Number>"#,
            r#"<Number statusCallbackEvent="initiated completed">2</Number>"#,
            r#"<Number statusCallbackEvent="answered">3</Number>"#,
            r#"<Number statusCallbackEvent="answered ringing">4</Number>"#,
            r#"<Number statusCallbackEvent="">5</Number></Dial>"#,
            r#"<Prompt attempt="1 3" errorType="timeout"/>"#,
        ))
    );
}

#[test]
fn enumerated_values_read_back_and_refuse_what_the_platform_does_not_know() {
    for method in [Method::Get, Method::Post] {
        assert_eq!(method.as_str().parse::<Method>(), Ok(method));
        assert_eq!(method.to_string(), method.as_str());
    }
    assert_eq!(
        "record-from-answer-dual".parse(),
        Ok(DialRecord::RecordFromAnswerDual)
    );
    assert_eq!(
        "say-as"
            .parse::<SsmlSayAsInterpretAs>()
            .map_err(|e| e.to_string()),
        Err(r#""say-as" is not a SsmlSayAsInterpretAs the platform knows"#.to_owned())
    );
    assert_eq!(
        "get".parse::<Method>(),
        Err(UnknownValue {
            kind: "Method",
            value: "get".to_owned()
        }),
        "values are case-sensitive, as the platform reads them"
    );
    assert_eq!("auto".parse(), Ok(SpeechTimeout::Auto));
    assert_eq!("5".parse(), Ok(SpeechTimeout::Seconds(5)));
    assert!("-1".parse::<SpeechTimeout>().is_err());
    assert_eq!(SpeechTimeout::Auto.to_string(), "auto");
    assert_eq!(SpeechTimeout::Seconds(12).to_string(), "12");
}

#[test]
fn what_the_builders_do_not_know_goes_through_attr_and_child() {
    let mut twiml = VoiceResponse::new();
    let say = twiml.say("a");
    say.voice("alice")
        .attr("voice", "man")
        .attr("x-new", "1 & 2");
    say.add_text("").add_text("b");
    say.child("mark").attr("name", "m1");
    say.add_text("c");
    let future = twiml.child("FutureVerb");
    assert_eq!(future.tag(), "FutureVerb");
    future.child("Inner").add_text("<x>");
    future.attr(String::from("mode"), String::from("\"q\""));
    twiml.hangup();
    assert_eq!(
        twiml.to_xml(),
        doc(concat!(
            r#"<Say voice="man" x-new="1 &amp; 2">ab<mark name="m1"/>c</Say>"#,
            r#"<FutureVerb mode="&quot;q&quot;"><Inner>&lt;x&gt;</Inner></FutureVerb>"#,
            r#"<Hangup/>"#,
        ))
    );
}

#[test]
fn a_name_that_is_not_an_xml_name_is_refused() {
    // XML 1.0's Name, not Unicode's letters: `ª` and `²` are letters or
    // digits to Unicode, not to XML; a combining accent may follow a
    // letter.
    for name in [
        "", "a b", "1st", "a\"b", "a=b", "<x>", "-x", "a/b", "ª", "a²", "\u{300}a",
    ] {
        let attr = std::panic::catch_unwind(|| {
            VoiceResponse::new().say("x").attr(name, "v");
        });
        assert!(attr.is_err(), "attribute {name:?}");
        let child = std::panic::catch_unwind(|| {
            VoiceResponse::new().child(name);
        });
        assert!(child.is_err(), "element {name:?}");
    }
    for name in [
        "a", "x-new", "ns:tag", "_x", "a.b", "é1", "a\u{300}", "日本", "a·b",
    ] {
        VoiceResponse::new().say("x").attr(name, "v").child(name);
    }
}

#[test]
fn nesting_follows_the_platform() {
    let mut twiml = VoiceResponse::new();
    let connect = twiml.connect();
    connect
        .stream()
        .url("wss://a")
        .parameter()
        .name("k")
        .value("v");
    connect
        .virtual_agent()
        .connector_name("bot")
        .config()
        .name("c")
        .value("1");
    let start = twiml.start();
    start.transcription().track(StreamTrack::InboundTrack);
    start.siprec().connector_name("rec");
    start.recording().channels(RecordingChannels::Dual);
    let dial = twiml.dial();
    dial.sip_url("sip:a@b")
        .headers()
        .header()
        .name("X-Case")
        .value("9");
    dial.client().identity("agent").add_text("");
    dial.application().application_sid("AP1");
    dial.conference("room").beep(ConferenceBeep::OnEnter);
    twiml.refer().sip("sip:c@d");
    assert_eq!(
        twiml.to_xml(),
        doc(concat!(
            r#"<Connect><Stream url="wss://a"><Parameter name="k" value="v"/></Stream>"#,
            r#"<VirtualAgent connectorName="bot"><Config name="c" value="1"/></VirtualAgent></Connect>"#,
            r#"<Start><Transcription track="inbound_track"/><Siprec connectorName="rec"/>"#,
            r#"<Recording channels="dual"/></Start>"#,
            r#"<Dial><Sip>sip:a@b<Headers><Header name="X-Case" value="9"/></Headers></Sip>"#,
            r#"<Client><Identity>agent</Identity></Client>"#,
            r#"<Application><ApplicationSid>AP1</ApplicationSid></Application>"#,
            r#"<Conference beep="onEnter">room</Conference></Dial>"#,
            r#"<Refer><Sip>sip:c@d</Sip></Refer>"#,
        ))
    );
}

#[test]
fn enqueued_reads_the_first_enqueue_only() {
    let mut twiml = VoiceResponse::new();
    assert_eq!(twiml.enqueued(), None);
    twiml.say("x");
    twiml.enqueue_name("sales").workflow_sid("WW1");
    twiml.enqueue().workflow_sid("WW2");
    assert_eq!(twiml.enqueued(), Some((Some("WW1"), Some("sales"))));
    let mut unnamed = VoiceResponse::new();
    unnamed.enqueue();
    assert_eq!(unnamed.enqueued(), Some((None, None)));
    let mut added = VoiceResponse::new();
    added.enqueue().add_text("").add_text("support");
    assert_eq!(added.enqueued(), Some((None, Some("support"))));
}

/// Each element whose text the helper makes optional: the helper's name
/// adds it without text, the name with what the text is adds it with
/// text, and an empty text writes none, as without.
#[test]
fn every_optional_text_has_a_form_without_and_one_with() {
    let mut twiml = VoiceResponse::new();
    twiml.play().digits("1");
    twiml.play_url("https://a/hold.mp3");
    twiml.play_url("");
    twiml.dial().hangup_on_star(true);
    twiml.dial_number("+15551230000");
    twiml.enqueue().workflow_sid("WW1");
    twiml.enqueue_name("support");
    let gather = twiml.gather();
    gather.play().digits("2");
    gather.play_url("https://a/g.mp3");
    let prompt = twiml.pay().prompt();
    prompt.play();
    prompt.play_url("https://a/p.mp3");
    let dial = twiml.dial();
    dial.application().application_sid("AP1");
    dial.application_sid("AP2");
    dial.client().identity("agent");
    dial.client_identity("agent_2");
    dial.sip().uri().priority("1");
    let sip = dial.sip_url("sip:a@b");
    sip.uri_sip_url("sip:c@d").weight("2");
    sip.uri();
    assert_eq!(
        twiml.to_xml(),
        doc(concat!(
            r#"<Play digits="1"/><Play>https://a/hold.mp3</Play><Play/>"#,
            r#"<Dial hangupOnStar="true"/><Dial>+15551230000</Dial>"#,
            r#"<Enqueue workflowSid="WW1"/><Enqueue>support</Enqueue>"#,
            r#"<Gather><Play digits="2"/><Play>https://a/g.mp3</Play></Gather>"#,
            r#"<Pay><Prompt><Play/><Play>https://a/p.mp3</Play></Prompt></Pay>"#,
            r#"<Dial><Application><ApplicationSid>AP1</ApplicationSid></Application>"#,
            r#"<Application>AP2</Application>"#,
            r#"<Client><Identity>agent</Identity></Client><Client>agent_2</Client>"#,
            r#"<Sip><Uri priority="1"/></Sip>"#,
            r#"<Sip>sip:a@b<Uri weight="2">sip:c@d</Uri><Uri/></Sip></Dial>"#,
        ))
    );
    // The queue name read back comes from the form with text.
    assert_eq!(twiml.enqueued(), Some((Some("WW1"), None)));
}

/// `comment` goes inside `<Response>` among the verbs in call order,
/// `comment_before` between the declaration and `<Response>` in call
/// order, `comment_after` right after `</Response>` (the last added
/// first), as the helper writes them.
#[test]
fn comments_go_where_the_helper_puts_them() {
    let mut twiml = VoiceResponse::new();
    twiml.comment_after("a1");
    twiml.comment("in1");
    twiml.comment_before("b1");
    twiml.say("Hi");
    twiml
        .comment("in2")
        .comment_after("a2")
        .comment_before("b2");
    assert_eq!(
        twiml.to_xml(),
        format!(
            "{DECL}<!-- b1 --><!-- b2 --><Response><!-- in1 --><Say>Hi</Say><!-- in2 --></Response><!-- a2 --><!-- a1 -->"
        )
    );
    // Comments are not verbs.
    assert!(!twiml.is_empty());
    let mut only_comments = VoiceResponse::new();
    only_comments.comment_before("b").comment_after("a");
    assert!(only_comments.is_empty());
    assert_eq!(
        only_comments.to_xml(),
        format!("{DECL}<!-- b --><Response/><!-- a -->")
    );
    // A comment inside is content: the response is no longer `<Response/>`.
    only_comments.comment("");
    assert!(only_comments.is_empty());
    assert_eq!(
        only_comments.to_xml(),
        format!("{DECL}<!-- b --><Response><!--  --></Response><!-- a -->")
    );
    // Equality counts the comments around the response.
    let mut a = VoiceResponse::new();
    let mut b = VoiceResponse::new();
    a.comment_before("x");
    b.comment_after("x");
    assert_ne!(a, b);
    assert_ne!(a, VoiceResponse::new());
    assert_eq!(a.clone(), a);
}

/// A comment's text is written as given, nothing escaped; `--` anywhere
/// in it turns every hyphen into U+FFFD, so that it cannot close early;
/// characters XML cannot hold are U+FFFD, as in text.
#[test]
fn a_comment_cannot_close_early() {
    let mut twiml = VoiceResponse::new();
    twiml.comment("a & <b> \"c\" 'd' \r\n\t-e-");
    twiml.comment("x --> <Hangup/> <!-- y");
    twiml.comment_before("-->");
    twiml.comment_after("--");
    twiml.comment("bad\u{1}\u{FFFF}");
    let xml = twiml.to_xml();
    assert_eq!(
        xml,
        format!(
            "{DECL}<!-- \u{FFFD}\u{FFFD}> --><Response>\
             <!-- a & <b> \"c\" 'd' \r\n\t-e- -->\
             <!-- x \u{FFFD}\u{FFFD}> <Hangup/> <!\u{FFFD}\u{FFFD} y -->\
             <!-- bad\u{FFFD}\u{FFFD} -->\
             </Response><!-- \u{FFFD}\u{FFFD} -->"
        )
    );
    // Five comments, each closed once: the only `--` are their own.
    assert_eq!(xml.matches("--").count(), 10);
    assert_eq!(xml.matches("-->").count(), 5);
}

/// The document as first built keeps the comments added before
/// `mark_built`; a comment added after it counts as a change.
#[test]
fn comments_and_the_document_as_first_built() {
    for add in [
        (|t: &mut VoiceResponse| {
            t.comment("later");
        }) as fn(&mut VoiceResponse),
        |t| {
            t.comment_before("later");
        },
        |t| {
            t.comment_after("later");
        },
    ] {
        let mut twiml = VoiceResponse::new();
        twiml.comment_before("b").comment_after("a").comment("c");
        twiml.mark_built();
        assert!(twiml.unchanged_since_built());
        let built = twiml.to_xml();
        add(&mut twiml);
        assert!(!twiml.unchanged_since_built());
        assert_eq!(twiml.built(), Some(built.as_str()));
        assert_ne!(twiml.to_xml(), built);
        assert!(twiml.to_xml().contains("<!-- later -->"));
    }
}

/// A secret in a comment is scrubbed from a log line as one in text is,
/// whether the comment keeps its hyphens or not (a `--` around the
/// secret changes the secret's own hyphens).
#[test]
fn a_secret_in_a_comment_is_scrubbed() {
    let secret = "cmt-secret-7f3a9c1e";
    let _registered = crate::Secret::new(secret);
    for text in [
        format!("token {secret}"),
        format!("token -- {secret}"),
        format!("{secret}\u{1}"),
    ] {
        for place in 0..3 {
            let mut twiml = VoiceResponse::new();
            match place {
                0 => twiml.comment(&text),
                1 => twiml.comment_before(&text),
                _ => twiml.comment_after(&text),
            };
            let xml = twiml.to_xml();
            // The document as a record's JSON line holds it.
            let line = serde_json::json!({ "twiml": xml }).to_string();
            for written in [xml, line] {
                let scrubbed = crate::secret::scrub_secrets(&written);
                assert!(
                    scrubbed.contains(crate::secret::REDACTED),
                    "{text:?}: {scrubbed}"
                );
                assert!(!scrubbed.contains("7f3a9c1e"), "{text:?}: {scrubbed}");
            }
        }
    }
}
