//! The vocabulary: every verb and noun of the voice markup, with its
//! attributes and the children it may hold, as the platform's helper
//! libraries have them.

// `ref_cast`'s derive adds a hidden marker struct without `Debug`, which
// the lint sees as this module's; every element here derives `Debug`.
#![allow(missing_debug_implementations)]

use super::values::*;

element! {
    /// `<AiSession>`: an AI session the call connects to, run by an AI connector.
    pub struct AiSession = "AiSession";
    attributes {
        /// `aiConnector`: the unique name or installed add-on sid that identifies the installed addon resource for the AI Connector.
        ai_connector = "aiConnector": text;
        /// `aiSessionConfiguration`: the unique name or id of the AiSession Configuration resource.
        ai_session_configuration = "aiSessionConfiguration": text;
    }
    children {
    }
}

element! {
    /// `<Application>`: a client application the call is connected to.
    pub struct Application = "Application";
    attributes {
        /// `copyParentTo`: give the application the parent call's `To`, instead of the application's SID.
        copy_parent_to = "copyParentTo": bool;
        /// `customerId`: identity of the customer calling application.
        customer_id = "customerId": text;
        /// `method`: HTTP method for `url`.
        method = "method": Method;
        /// `statusCallback`: status callback URL.
        status_callback = "statusCallback": text;
        /// `statusCallbackEvent`: events to trigger status callback.
        status_callback_event = "statusCallbackEvent": [CallEvent];
        /// `statusCallbackMethod`: HTTP method for `statusCallback`.
        status_callback_method = "statusCallbackMethod": Method;
        /// `url`: URL of the markup to run for the called party before connecting.
        url = "url": text;
    }
    children {
        application_sid = "applicationSid" -> ApplicationSid(sid);
        parameter = "parameter" -> Parameter;
    }
}

element! {
    /// `<ApplicationSid>`: the SID of the application to connect to.
    pub struct ApplicationSid = "ApplicationSid";
    attributes {
    }
    children {
    }
}

element! {
    /// `<Autopilot>`: an Autopilot assistant (retired by the platform; kept for old markup).
    pub struct Autopilot = "Autopilot";
    attributes {
    }
    children {
    }
}

element! {
    /// `<Client>`: a client (browser or mobile SDK) identity to call.
    pub struct Client = "Client";
    attributes {
        /// `method`: HTTP method for `url`.
        method = "method": Method;
        /// `statusCallback`: status callback URL.
        status_callback = "statusCallback": text;
        /// `statusCallbackEvent`: events to trigger status callback.
        status_callback_event = "statusCallbackEvent": [CallEvent];
        /// `statusCallbackMethod`: HTTP method for `statusCallback`.
        status_callback_method = "statusCallbackMethod": Method;
        /// `url`: URL of the markup to run for the client before connecting.
        url = "url": text;
    }
    children {
        identity = "identity" -> Identity(client_identity);
        parameter = "parameter" -> Parameter;
    }
}

element! {
    /// `<Conference>`: a conference room: warm transfers, supervisors listening in or barging in.
    pub struct Conference = "Conference";
    attributes {
        /// `beep`: when to beep as participants join or leave.
        beep = "beep": ConferenceBeep;
        /// `coach`: call coach.
        coach = "coach": text;
        /// `endConferenceOnExit`: end the conference on exit.
        end_conference_on_exit = "endConferenceOnExit": bool;
        /// `eventCallbackUrl`: event callback URL.
        event_callback_url = "eventCallbackUrl": text;
        /// `jitterBufferSize`: size of jitter buffer for participant.
        jitter_buffer_size = "jitterBufferSize": ConferenceJitterBufferSize;
        /// `maxParticipants`: maximum number of participants.
        max_participants = "maxParticipants": u32;
        /// `muted`: join the conference muted.
        muted = "muted": bool;
        /// `participantLabel`: a label for participant.
        participant_label = "participantLabel": text;
        /// `record`: record the conference.
        record = "record": ConferenceRecord;
        /// `recordingConfigurationId`: configuration for the recording.
        recording_configuration_id = "recordingConfigurationId": text;
        /// `recordingStatusCallback`: recording status callback URL.
        recording_status_callback = "recordingStatusCallback": text;
        /// `recordingStatusCallbackEvent`: recording status callback events.
        recording_status_callback_event = "recordingStatusCallbackEvent": [RecordingEvent];
        /// `recordingStatusCallbackMethod`: recording status callback URL method.
        recording_status_callback_method = "recordingStatusCallbackMethod": Method;
        /// `region`: conference region.
        region = "region": ConferenceRegion;
        /// `startConferenceOnEnter`: start the conference on enter.
        start_conference_on_enter = "startConferenceOnEnter": bool;
        /// `statusCallback`: status callback URL.
        status_callback = "statusCallback": text;
        /// `statusCallbackEvent`: events to call status callback URL.
        status_callback_event = "statusCallbackEvent": [ConferenceEvent];
        /// `statusCallbackMethod`: status callback URL method.
        status_callback_method = "statusCallbackMethod": Method;
        /// `trim`: trim the conference recording.
        trim = "trim": Trim;
        /// `waitMethod`: wait URL method.
        wait_method = "waitMethod": Method;
        /// `waitUrl`: wait URL.
        wait_url = "waitUrl": text;
    }
    children {
    }
}

element! {
    /// `<Config>`: a name and value configuring a virtual agent or a transcription.
    pub struct Config = "Config";
    attributes {
        /// `name`: the name of the custom config.
        name = "name": text;
        /// `value`: the value of the custom config.
        value = "value": text;
    }
    children {
    }
}

element! {
    /// `<Connect>`: connects the call to a stream, an AI agent, a room or a conversation, ending the markup.
    pub struct Connect = "Connect";
    attributes {
        /// `action`: action URL.
        action = "action": text;
        /// `method`: HTTP method for `action`.
        method = "method": Method;
    }
    children {
        ai_session = "aiSession" -> AiSession;
        autopilot = "autopilot" -> Autopilot(name);
        conversation = "conversation" -> Conversation;
        conversation_relay = "conversationRelay" -> ConversationRelay;
        conversation_relay_session = "conversationRelaySession" -> ConversationRelaySession;
        room = "room" -> Room(name);
        stream = "stream" -> Stream;
        virtual_agent = "virtualAgent" -> VirtualAgent;
    }
}

element! {
    /// `<Conversation>`: a Conversations service conversation the call joins.
    pub struct Conversation = "Conversation";
    attributes {
        /// `inboundAutocreation`: inbound autocreation.
        inbound_autocreation = "inboundAutocreation": bool;
        /// `inboundTimeout`: inbound timeout.
        inbound_timeout = "inboundTimeout": u32;
        /// `method`: HTTP method for `url`.
        method = "method": Method;
        /// `record`: whether and how the conversation is recorded.
        record = "record": ConversationRecord;
        /// `recordingStatusCallback`: recording status callback URL.
        recording_status_callback = "recordingStatusCallback": text;
        /// `recordingStatusCallbackEvent`: recording status callback events.
        recording_status_callback_event = "recordingStatusCallbackEvent": [RecordingEvent];
        /// `recordingStatusCallbackMethod`: recording status callback URL method.
        recording_status_callback_method = "recordingStatusCallbackMethod": Method;
        /// `routingAssignmentTimeout`: routing assignment timeout.
        routing_assignment_timeout = "routingAssignmentTimeout": u32;
        /// `serviceInstanceSid`: the Conversations service's SID.
        service_instance_sid = "serviceInstanceSid": text;
        /// `statusCallback`: status callback URL.
        status_callback = "statusCallback": text;
        /// `statusCallbackEvent`: events to call status callback URL.
        status_callback_event = "statusCallbackEvent": [ConversationEvent];
        /// `statusCallbackMethod`: status callback URL method.
        status_callback_method = "statusCallbackMethod": Method;
        /// `trim`: whether silence is trimmed from the recording.
        trim = "trim": Trim;
        /// `url`: URL of the markup to run for the called party before connecting.
        url = "url": text;
    }
    children {
    }
}

element! {
    /// `<ConversationRelay>`: a live conversation between the caller and an application over a websocket, with speech recognition and text-to-speech.
    pub struct ConversationRelay = "ConversationRelay";
    attributes {
        /// `backgroundnoisereduction`: enables background noise filtering on the audio stream before it reaches the STT engine, improving transcription accuracy in noisy environments.
        background_noise_reduction = "backgroundnoisereduction": text;
        /// `debug`: multiple debug options to be used for troubleshooting.
        debug = "debug": text;
        /// `deepgramsmartformat`: this parameter enables Deepgram's smart formatting feature, which automatically applies punctuation, capitalization, and formatting (e.g. numbers, dates, currency) to transcripts.
        deepgram_smart_format = "deepgramsmartformat": text;
        /// `dtmfDetection`: whether DTMF tones should be detected and reported in speech transcription.
        dtmf_detection = "dtmfDetection": bool;
        /// `elevenlabsTextNormalization`: when using ElevenLabs as TTS provider, this parameter allows you to enable or disable its text normalization feature.
        elevenlabs_text_normalization = "elevenlabsTextNormalization": text;
        /// `events`: this parameter allows you to enable event subscriptions.
        events = "events": text;
        /// `hints`: phrases to help better accuracy in speech recognition of these phrases.
        hints = "hints": text;
        /// `ignorebackchannel`: whether brief caller acknowledgments (e.g. "yeah", "uh-huh") are ignored and will not interrupt the agent while it is speaking.
        ignore_backchannel = "ignorebackchannel": text;
        /// `intelligenceService`: the Conversational Intelligence Service id or unique name to be used for the session.
        intelligence_service = "intelligenceService": text;
        /// `interruptSensitivity`: set the sensitivity of the interrupt feature for speech. The value can be low, medium, or high.
        interrupt_sensitivity = "interruptSensitivity": text;
        /// `interruptible`: whether and how the input from a caller, such as speaking or DTMF can interrupt the play of text-to-speech.
        interruptible = "interruptible": text;
        /// `language`: language to be used for both text-to-speech and transcription.
        language = "language": text;
        /// `partialPrompts`: whether partial prompts should be reported to WebSocket server before the caller finishes speaking.
        partial_prompts = "partialPrompts": bool;
        /// `preemptible`: whether subsequent text-to-speech or play media can interrupt the on-going play of text-to-speech or media.
        preemptible = "preemptible": bool;
        /// `profanityFilter`: whether profanities should be filtered out of the speech transcription.
        profanity_filter = "profanityFilter": bool;
        /// `reportInputDuringAgentSpeech`: whether prompts should be reported to WebSocket server when text-to-speech playing and interrupt is disabled.
        report_input_during_agent_speech = "reportInputDuringAgentSpeech": bool;
        /// `speechModel`: speech model to be used for transcription.
        speech_model = "speechModel": text;
        /// `speechtimeout`: set the duration of silence that indicates the end of speech.
        speech_timeout = "speechtimeout": text;
        /// `transcriptionLanguage`: language to be used for transcription.
        transcription_language = "transcriptionLanguage": text;
        /// `transcriptionProvider`: provider to be used for transcription.
        transcription_provider = "transcriptionProvider": text;
        /// `ttsLanguage`: language to be used for text-to-speech.
        tts_language = "ttsLanguage": text;
        /// `ttsProvider`: provider to be used for text-to-speech.
        tts_provider = "ttsProvider": text;
        /// `url`: URL of the remote service where the session is connected to.
        url = "url": text;
        /// `voice`: voice to be used for text-to-speech.
        voice = "voice": text;
        /// `welcomeGreeting`: the sentence to be played automatically when the session is connected.
        welcome_greeting = "welcomeGreeting": text;
        /// `welcomeGreetingInterruptible`: whether and how the input from a caller, such as speaking or DTMF can interrupt the welcome greeting.
        welcome_greeting_interruptible = "welcomeGreetingInterruptible": text;
    }
    children {
        language_element = "language" -> Language;
        parameter = "parameter" -> Parameter;
    }
}

element! {
    /// `<ConversationRelaySession>`: a ConversationRelay session run by a connector.
    pub struct ConversationRelaySession = "ConversationRelaySession";
    attributes {
        /// `connector`: the unique name or installed add-on sid that identifies the installed addon resource for the ConversationRelaySession Connector.
        connector = "connector": text;
        /// `sessionConfiguration`: the unique name or id of the ConversationRelaySession Configuration resource.
        session_configuration = "sessionConfiguration": text;
    }
    children {
    }
}

element! {
    /// `<Dial>`: connects the caller to another party.
    pub struct Dial = "Dial";
    attributes {
        /// `action`: action URL.
        action = "action": text;
        /// `answerOnBridge`: preserve the ringing behavior of the inbound call until the Dialed call picks up.
        answer_on_bridge = "answerOnBridge": bool;
        /// `callerId`: caller ID to display.
        caller_id = "callerId": text;
        /// `events`: subscription to events.
        events = "events": DialEvent;
        /// `hangupOnStar`: hangup call on star press.
        hangup_on_star = "hangupOnStar": bool;
        /// `method`: HTTP method for `action`.
        method = "method": Method;
        /// `passports`: base64-encoded comma-separated identity passports (e.g. shaken, div).
        passports = "passports": text;
        /// `record`: record the call.
        record = "record": DialRecord;
        /// `recordingConfigurationId`: configuration for the recording.
        recording_configuration_id = "recordingConfigurationId": text;
        /// `recordingStatusCallback`: recording status callback URL.
        recording_status_callback = "recordingStatusCallback": text;
        /// `recordingStatusCallbackEvent`: recording status callback events.
        recording_status_callback_event = "recordingStatusCallbackEvent": [RecordingEvent];
        /// `recordingStatusCallbackMethod`: recording status callback URL method.
        recording_status_callback_method = "recordingStatusCallbackMethod": Method;
        /// `recordingTrack`: to indicate which audio track should be recorded.
        recording_track = "recordingTrack": RecordingTrack;
        /// `referMethod`: the HTTP method to use for the refer Webhook.
        refer_method = "referMethod": Method;
        /// `referUrl`: webhook that will receive future SIP REFER requests.
        refer_url = "referUrl": text;
        /// `ringTone`: the ringback tone the caller hears while the call rings (a country code, e.g. `us`).
        ring_tone = "ringTone": text;
        /// `sequential`: used to determine if child TwiML nouns should be dialed in order, one after the other (sequential) or dial all at once (parallel). Default is false, parallel.
        sequential = "sequential": bool;
        /// `timeLimit`: max time length.
        time_limit = "timeLimit": u32;
        /// `timeout`: time to wait for answer.
        timeout = "timeout": u32;
        /// `trim`: trim the recording.
        trim = "trim": Trim;
    }
    children {
        application = "application" -> Application | application_sid(sid);
        client = "client" -> Client | client_identity(identity);
        conference = "conference" -> Conference(name);
        number = "number" -> Number(phone_number);
        queue = "queue" -> Queue(name);
        sim = "sim" -> Sim(sim_sid);
        sip = "sip" -> Sip | sip_url(url);
        whats_app = "whatsApp" -> WhatsApp(phone_number);
    }
}

element! {
    /// `<Echo>`: plays back what the caller says (for testing audio).
    pub struct Echo = "Echo";
    attributes {
    }
    children {
    }
}

element! {
    /// `<Enqueue>`: puts the call into a queue or hands it to a task router workflow.
    pub struct Enqueue = "Enqueue";
    attributes {
        /// `action`: action URL.
        action = "action": text;
        /// `maxQueueSize`: maximum size of queue.
        max_queue_size = "maxQueueSize": u32;
        /// `method`: HTTP method for `action`.
        method = "method": Method;
        /// `waitUrl`: wait URL.
        wait_url = "waitUrl": text;
        /// `waitUrlMethod`: wait URL method.
        wait_url_method = "waitUrlMethod": Method;
        /// `workflowSid`: the task router workflow that routes the task.
        workflow_sid = "workflowSid": text;
    }
    children {
        task = "task" -> Task(body: TaskBody);
    }
}

element! {
    /// `<Gather>`: collects key presses or speech, optionally while prompting.
    pub struct Gather = "Gather";
    attributes {
        /// `action`: action URL.
        action = "action": text;
        /// `actionOnEmptyResult`: force webhook to the action URL even if there is no input.
        action_on_empty_result = "actionOnEmptyResult": bool;
        /// `bargeIn`: stop playing media upon speech.
        barge_in = "bargeIn": bool;
        /// `debug`: allow debug for gather.
        debug = "debug": bool;
        /// `enhanced`: use enhanced speech model.
        enhanced = "enhanced": bool;
        /// `finishOnKey`: finish gather on key.
        finish_on_key = "finishOnKey": text;
        /// `hints`: speech recognition hints.
        hints = "hints": text;
        /// `input`: what to listen for: `dtmf`, `speech` or both.
        input = "input": [GatherInput];
        /// `language`: language to use.
        language = "language": text;
        /// `maxSpeechTime`: max allowed time for speech input.
        max_speech_time = "maxSpeechTime": u32;
        /// `method`: HTTP method for `action`.
        method = "method": Method;
        /// `numDigits`: number of digits to collect.
        num_digits = "numDigits": u32;
        /// `partialResultCallback`: partial result callback URL.
        partial_result_callback = "partialResultCallback": text;
        /// `partialResultCallbackMethod`: partial result callback URL method.
        partial_result_callback_method = "partialResultCallbackMethod": Method;
        /// `profanityFilter`: profanity Filter on speech.
        profanity_filter = "profanityFilter": bool;
        /// `speechModel`: specify the model that is best suited for your use case.
        speech_model = "speechModel": text;
        /// `speechTimeout`: seconds of silence that end speech, or [`SpeechTimeout::Auto`]; a `u32` works too.
        speech_timeout = "speechTimeout": SpeechTimeout;
        /// `timeout`: time to wait to gather input.
        timeout = "timeout": u32;
    }
    children {
        pause = "pause" -> Pause;
        play = "play" -> Play | play_url(url);
        say = "say" -> Say(message);
    }
}

element! {
    /// `<Hangup>`: ends the call.
    pub struct Hangup = "Hangup";
    attributes {
    }
    children {
        parameter = "parameter" -> Parameter;
    }
}

element! {
    /// `<Header>`: a SIP header sent on a `<Sip>` call.
    pub struct Header = "Header";
    attributes {
        /// `name`: the name of the custom header.
        name = "name": text;
        /// `value`: the value of the custom header.
        value = "value": text;
    }
    children {
    }
}

element! {
    /// `<Headers>`: the custom SIP headers of a `<Sip>` call.
    pub struct Headers = "Headers";
    attributes {
    }
    children {
        header = "header" -> Header;
    }
}

element! {
    /// `<Identity>`: the identity of the client to call.
    pub struct Identity = "Identity";
    attributes {
    }
    children {
    }
}

element! {
    /// `<Language>`: a language ConversationRelay can switch to, with its speech settings.
    pub struct Language = "Language";
    attributes {
        /// `code`: language code of this language setting is for.
        code = "code": text;
        /// `speechModel`: speech model to be used for transcription of this language.
        speech_model = "speechModel": text;
        /// `transcriptionProvider`: provider to be used for transcription of this language.
        transcription_provider = "transcriptionProvider": text;
        /// `ttsProvider`: provider to be used for text-to-speech of this language.
        tts_provider = "ttsProvider": text;
        /// `voice`: voice to be used for text-to-speech of this language.
        voice = "voice": text;
    }
    children {
    }
}

element! {
    /// `<Leave>`: takes the caller out of its queue.
    pub struct Leave = "Leave";
    attributes {
    }
    children {
    }
}

element! {
    /// `<Number>`: a phone number to call.
    pub struct Number = "Number";
    attributes {
        /// `amdStatusCallback`: URL the platform posts answering machine detection results to.
        amd_status_callback = "amdStatusCallback": text;
        /// `amdStatusCallbackMethod`: HTTP method for `amdStatusCallback`.
        amd_status_callback_method = "amdStatusCallbackMethod": Method;
        /// `byoc`: BYOC trunk SID (Beta).
        byoc = "byoc": text;
        /// `machineDetection`: enable machine detection or end of greeting detection.
        machine_detection = "machineDetection": text;
        /// `machineDetectionSilenceTimeout`: number of milliseconds of initial silence.
        machine_detection_silence_timeout = "machineDetectionSilenceTimeout": u32;
        /// `machineDetectionSpeechEndThreshold`: number of milliseconds of silence after speech activity.
        machine_detection_speech_end_threshold = "machineDetectionSpeechEndThreshold": u32;
        /// `machineDetectionSpeechThreshold`: number of milliseconds for measuring stick for the length of the speech activity.
        machine_detection_speech_threshold = "machineDetectionSpeechThreshold": u32;
        /// `machineDetectionTimeout`: number of seconds to wait for machine detection.
        machine_detection_timeout = "machineDetectionTimeout": u32;
        /// `method`: HTTP method for `url`.
        method = "method": Method;
        /// `sendDigits`: DTMF tones to play when the call is answered.
        send_digits = "sendDigits": text;
        /// `statusCallback`: status callback URL.
        status_callback = "statusCallback": text;
        /// `statusCallbackEvent`: events to call status callback.
        status_callback_event = "statusCallbackEvent": [CallEvent];
        /// `statusCallbackMethod`: status callback URL method.
        status_callback_method = "statusCallbackMethod": Method;
        /// `url`: URL of the markup to run for the called party before connecting.
        url = "url": text;
    }
    children {
    }
}

element! {
    /// `<Parameter>`: a custom parameter passed on to a stream, an application, a client or a connector.
    pub struct Parameter = "Parameter";
    attributes {
        /// `name`: the name of the custom parameter.
        name = "name": text;
        /// `value`: the value of the custom parameter.
        value = "value": text;
    }
    children {
    }
}

element! {
    /// `<Pause>`: silence.
    pub struct Pause = "Pause";
    attributes {
        /// `length`: length in seconds to pause.
        length = "length": u32;
    }
    children {
    }
}

element! {
    /// `<Pay>`: collects a payment by card or bank account.
    pub struct Pay = "Pay";
    attributes {
        /// `action`: action URL.
        action = "action": text;
        /// `bankAccountType`: bank account type for ach transactions. If set, payment method attribute must be provided and value should be set to ach-debit. defaults to consumer-checking.
        bank_account_type = "bankAccountType": PayBankAccountType;
        /// `chargeAmount`: amount to process. If value is greater than 0 then make the payment else create a payment token.
        charge_amount = "chargeAmount": text;
        /// `currency`: currency of the amount attribute.
        currency = "currency": text;
        /// `description`: details regarding the payment.
        description = "description": text;
        /// `input`: how the caller enters the details: `dtmf`.
        input = "input": PayInput;
        /// `language`: language to use.
        language = "language": text;
        /// `maxAttempts`: maximum number of allowed retries when gathering input.
        max_attempts = "maxAttempts": u32;
        /// `minPostalCodeLength`: prompt for minimum postal code length.
        min_postal_code_length = "minPostalCodeLength": u32;
        /// `paymentConnector`: unique name for payment connector.
        payment_connector = "paymentConnector": text;
        /// `paymentMethod`: payment method to be used. defaults to credit-card.
        payment_method = "paymentMethod": PayPaymentMethod;
        /// `postalCode`: prompt for postal code and it should be true/false or default postal code.
        postal_code = "postalCode": text;
        /// `securityCode`: prompt for security code.
        security_code = "securityCode": bool;
        /// `statusCallback`: status callback URL.
        status_callback = "statusCallback": text;
        /// `statusCallbackMethod`: HTTP method for the status callback.
        status_callback_method = "statusCallbackMethod": Method;
        /// `timeout`: time to wait to gather input.
        timeout = "timeout": u32;
        /// `tokenType`: type of token.
        token_type = "tokenType": PayTokenType;
        /// `validCardTypes`: the card brands accepted.
        valid_card_types = "validCardTypes": [CardType];
    }
    children {
        parameter = "parameter" -> Parameter;
        prompt = "prompt" -> Prompt;
    }
}

element! {
    /// `<Play>`: plays an audio file or sends digits.
    pub struct Play = "Play";
    attributes {
        /// `digits`: play DTMF tones for digits.
        digits = "digits": text;
        /// `loop`: how many times to play (0: until the call ends).
        loop_ = "loop": u32;
    }
    children {
    }
}

element! {
    /// `<Prompt>`: what `<Pay>` says for a given step, attempt or error.
    pub struct Prompt = "Prompt";
    attributes {
        /// `attempt`: current attempt count.
        attempt = "attempt": [u32];
        /// `cardType`: type of the credit card.
        card_type = "cardType": [CardType];
        /// `errorType`: type of error.
        error_type = "errorType": [PromptErrorType];
        /// `for`: name of the payment source data element.
        for_ = "for": PromptFor;
        /// `requireMatchingInputs`: require customer to input requested information twice and verify matching.
        require_matching_inputs = "requireMatchingInputs": bool;
    }
    children {
        pause = "pause" -> Pause;
        play = "play" -> Play | play_url(url);
        say = "say" -> Say(message);
    }
}

element! {
    /// `<Queue>`: a queue whose first caller is connected.
    pub struct Queue = "Queue";
    attributes {
        /// `method`: HTTP method for `url`.
        method = "method": Method;
        /// `postWorkActivitySid`: the task router activity the worker takes after the call.
        post_work_activity_sid = "postWorkActivitySid": text;
        /// `reservationSid`: the task router reservation being accepted.
        reservation_sid = "reservationSid": text;
        /// `url`: action URL.
        url = "url": text;
    }
    children {
    }
}

element! {
    /// `<Record>`: records the caller.
    pub struct Record = "Record";
    attributes {
        /// `action`: action URL.
        action = "action": text;
        /// `finishOnKey`: finish recording on key.
        finish_on_key = "finishOnKey": text;
        /// `maxLength`: max time to record in seconds.
        max_length = "maxLength": u32;
        /// `method`: HTTP method for `action`.
        method = "method": Method;
        /// `playBeep`: play beep.
        play_beep = "playBeep": bool;
        /// `recordingConfigurationId`: configuration for the recording.
        recording_configuration_id = "recordingConfigurationId": text;
        /// `recordingStatusCallback`: status callback URL.
        recording_status_callback = "recordingStatusCallback": text;
        /// `recordingStatusCallbackEvent`: recording status callback events.
        recording_status_callback_event = "recordingStatusCallbackEvent": [RecordingEvent];
        /// `recordingStatusCallbackMethod`: status callback URL method.
        recording_status_callback_method = "recordingStatusCallbackMethod": Method;
        /// `timeout`: timeout to begin recording.
        timeout = "timeout": u32;
        /// `transcribe`: transcribe the recording.
        transcribe = "transcribe": bool;
        /// `transcribeCallback`: transcribe callback URL.
        transcribe_callback = "transcribeCallback": text;
        /// `trim`: trim the recording.
        trim = "trim": Trim;
    }
    children {
    }
}

element! {
    /// `<Recording>`: records the call in the background.
    pub struct Recording = "Recording";
    attributes {
        /// `channels`: the recording channels for the final recording.
        channels = "channels": RecordingChannels;
        /// `recordingConfigurationId`: configuration for the recording.
        recording_configuration_id = "recordingConfigurationId": text;
        /// `recordingStatusCallback`: recording status callback URL.
        recording_status_callback = "recordingStatusCallback": text;
        /// `recordingStatusCallbackEvent`: recording status callback events.
        recording_status_callback_event = "recordingStatusCallbackEvent": [RecordingEvent];
        /// `recordingStatusCallbackMethod`: HTTP method for `recordingStatusCallback`.
        recording_status_callback_method = "recordingStatusCallbackMethod": Method;
        /// `track`: to indicate which audio track should be recorded.
        track = "track": RecordingTrack;
        /// `trim`: trim the recording.
        trim = "trim": Trim;
    }
    children {
    }
}

element! {
    /// `<Redirect>`: continues with the markup at another URL.
    pub struct Redirect = "Redirect";
    attributes {
        /// `method`: HTTP method for the URL.
        method = "method": Method;
    }
    children {
    }
}

element! {
    /// `<Refer>`: transfers a SIP call elsewhere with a SIP REFER.
    pub struct Refer = "Refer";
    attributes {
        /// `action`: action URL.
        action = "action": text;
        /// `method`: HTTP method for `action`.
        method = "method": Method;
    }
    children {
        sip = "sip" -> ReferSip(sip_url);
    }
}

element! {
    /// `<Sip>`: the SIP address a `<Refer>` transfers to.
    pub struct ReferSip = "Sip";
    attributes {
    }
    children {
    }
}

element! {
    /// `<Reject>`: refuses the call without answering it.
    pub struct Reject = "Reject";
    attributes {
        /// `reason`: rejection reason.
        reason = "reason": RejectReason;
    }
    children {
        parameter = "parameter" -> Parameter;
    }
}

element! {
    /// `<Room>`: a video room the call joins.
    pub struct Room = "Room";
    attributes {
        /// `participantIdentity`: participant identity when connecting to the Room.
        participant_identity = "participantIdentity": text;
    }
    children {
    }
}

element! {
    /// `<Say>`: text-to-speech, with SSML inside.
    pub struct Say = "Say";
    attributes {
        /// `language`: message language.
        language = "language": text;
        /// `loop`: how many times to speak the text (0: until the call ends).
        loop_ = "loop": u32;
        /// `voice`: voice to use.
        voice = "voice": text;
    }
    children {
        break_ = "break" -> SsmlBreak;
        emphasis = "emphasis" -> SsmlEmphasis(words);
        lang = "lang" -> SsmlLang(words);
        p = "p" -> SsmlP(words);
        phoneme = "phoneme" -> SsmlPhoneme(words);
        prosody = "prosody" -> SsmlProsody(words);
        s = "s" -> SsmlS(words);
        say_as = "sayAs" -> SsmlSayAs(words);
        sub = "sub" -> SsmlSub(words);
        w = "w" -> SsmlW(words);
    }
}

element! {
    /// `<Sim>`: a SIM (by its SID) to call.
    pub struct Sim = "Sim";
    attributes {
    }
    children {
    }
}

element! {
    /// `<Sip>`: a SIP endpoint to call.
    pub struct Sip = "Sip";
    attributes {
        /// `amdStatusCallback`: URL the platform posts answering machine detection results to.
        amd_status_callback = "amdStatusCallback": text;
        /// `amdStatusCallbackMethod`: HTTP method for `amdStatusCallback`.
        amd_status_callback_method = "amdStatusCallbackMethod": Method;
        /// `machineDetection`: enable machine detection or end of greeting detection.
        machine_detection = "machineDetection": text;
        /// `machineDetectionSilenceTimeout`: number of milliseconds of initial silence.
        machine_detection_silence_timeout = "machineDetectionSilenceTimeout": u32;
        /// `machineDetectionSpeechEndThreshold`: number of milliseconds of silence after speech activity.
        machine_detection_speech_end_threshold = "machineDetectionSpeechEndThreshold": u32;
        /// `machineDetectionSpeechThreshold`: number of milliseconds for measuring stick for the length of the speech activity.
        machine_detection_speech_threshold = "machineDetectionSpeechThreshold": u32;
        /// `machineDetectionTimeout`: number of seconds to wait for machine detection.
        machine_detection_timeout = "machineDetectionTimeout": u32;
        /// `method`: HTTP method for `url`.
        method = "method": Method;
        /// `password`: SIP Password.
        password = "password": text;
        /// `statusCallback`: status callback URL.
        status_callback = "statusCallback": text;
        /// `statusCallbackEvent`: status callback events.
        status_callback_event = "statusCallbackEvent": [CallEvent];
        /// `statusCallbackMethod`: status callback URL method.
        status_callback_method = "statusCallbackMethod": Method;
        /// `url`: action URL.
        url = "url": text;
        /// `username`: SIP Username.
        username = "username": text;
    }
    children {
        headers = "headers" -> Headers;
        uri = "uri" -> SipUri | uri_sip_url(sip_url);
    }
}

element! {
    /// `<Uri>`: one of the SIP addresses a [`Sip`] call tries, with its priority and weight.
    pub struct SipUri = "Uri";
    attributes {
        /// `password`: the password for authentication.
        password = "password": text;
        /// `priority`: the priority of this SIP URI.
        priority = "priority": text;
        /// `username`: the username for authentication.
        username = "username": text;
        /// `weight`: the weight of this SIP URI.
        weight = "weight": text;
    }
    children {
    }
}

element! {
    /// `<Siprec>`: forks the call's media to a SIPREC recorder.
    pub struct Siprec = "Siprec";
    attributes {
        /// `connectorName`: unique name for Connector.
        connector_name = "connectorName": text;
        /// `name`: friendly name given to SIPREC.
        name = "name": text;
        /// `statusCallback`: status callback URL.
        status_callback = "statusCallback": text;
        /// `statusCallbackMethod`: HTTP method for `statusCallback`.
        status_callback_method = "statusCallbackMethod": Method;
        /// `track`: track to be streamed to remote service.
        track = "track": StreamTrack;
    }
    children {
        parameter = "parameter" -> Parameter;
    }
}

element! {
    /// `<Sms>`: sends a text message during the call (legacy; the platform recommends its messaging API).
    pub struct Sms = "Sms";
    attributes {
        /// `action`: action URL.
        action = "action": text;
        /// `from`: number to send message from.
        from = "from": text;
        /// `method`: HTTP method for `action`.
        method = "method": Method;
        /// `statusCallback`: status callback URL.
        status_callback = "statusCallback": text;
        /// `to`: number to send message to.
        to = "to": text;
    }
    children {
    }
}

element! {
    /// `<break>`: SSML `<break>`: a pause in speech.
    pub struct SsmlBreak = "break";
    attributes {
        /// `strength`: set a pause based on strength.
        strength = "strength": SsmlBreakStrength;
        /// `time`: set a pause to a specific length of time in seconds or milliseconds, e.g. `2s` or `500ms`.
        time = "time": text;
    }
    children {
    }
}

element! {
    /// `<emphasis>`: SSML `<emphasis>`: words spoken with emphasis.
    pub struct SsmlEmphasis = "emphasis";
    attributes {
        /// `level`: specify the degree of emphasis.
        level = "level": SsmlEmphasisLevel;
    }
    children {
        break_ = "break" -> SsmlBreak;
        emphasis = "emphasis" -> SsmlEmphasis(words);
        lang = "lang" -> SsmlLang(words);
        phoneme = "phoneme" -> SsmlPhoneme(words);
        prosody = "prosody" -> SsmlProsody(words);
        say_as = "sayAs" -> SsmlSayAs(words);
        sub = "sub" -> SsmlSub(words);
        w = "w" -> SsmlW(words);
    }
}

element! {
    /// `<lang>`: SSML `<lang>`: words in another language.
    pub struct SsmlLang = "lang";
    attributes {
        /// `xml:lang`: specify the language.
        xml_lang = "xml:lang": text;
    }
    children {
        break_ = "break" -> SsmlBreak;
        emphasis = "emphasis" -> SsmlEmphasis(words);
        lang = "lang" -> SsmlLang(words);
        p = "p" -> SsmlP(words);
        phoneme = "phoneme" -> SsmlPhoneme(words);
        prosody = "prosody" -> SsmlProsody(words);
        s = "s" -> SsmlS(words);
        say_as = "sayAs" -> SsmlSayAs(words);
        sub = "sub" -> SsmlSub(words);
        w = "w" -> SsmlW(words);
    }
}

element! {
    /// `<p>`: SSML `<p>`: a paragraph.
    pub struct SsmlP = "p";
    attributes {
    }
    children {
        break_ = "break" -> SsmlBreak;
        emphasis = "emphasis" -> SsmlEmphasis(words);
        lang = "lang" -> SsmlLang(words);
        phoneme = "phoneme" -> SsmlPhoneme(words);
        prosody = "prosody" -> SsmlProsody(words);
        s = "s" -> SsmlS(words);
        say_as = "sayAs" -> SsmlSayAs(words);
        sub = "sub" -> SsmlSub(words);
        w = "w" -> SsmlW(words);
    }
}

element! {
    /// `<phoneme>`: SSML `<phoneme>`: a phonetic pronunciation.
    pub struct SsmlPhoneme = "phoneme";
    attributes {
        /// `alphabet`: specify the phonetic alphabet.
        alphabet = "alphabet": SsmlPhonemeAlphabet;
        /// `ph`: specify the phonetic symbols for pronunciation.
        ph = "ph": text;
    }
    children {
    }
}

element! {
    /// `<prosody>`: SSML `<prosody>`: volume, rate and pitch.
    pub struct SsmlProsody = "prosody";
    attributes {
        /// `pitch`: specify the pitch, available values: default, x-low, low, medium, high, x-high, +n%, -n%.
        pitch = "pitch": text;
        /// `rate`: specify the rate, available values: x-slow, slow, medium, fast, x-fast, n%.
        rate = "rate": text;
        /// `volume`: specify the volume, available values: default, silent, x-soft, soft, medium, loud, x-loud, +ndB, -ndB.
        volume = "volume": text;
    }
    children {
        break_ = "break" -> SsmlBreak;
        emphasis = "emphasis" -> SsmlEmphasis(words);
        lang = "lang" -> SsmlLang(words);
        p = "p" -> SsmlP(words);
        phoneme = "phoneme" -> SsmlPhoneme(words);
        prosody = "prosody" -> SsmlProsody(words);
        s = "s" -> SsmlS(words);
        say_as = "sayAs" -> SsmlSayAs(words);
        sub = "sub" -> SsmlSub(words);
        w = "w" -> SsmlW(words);
    }
}

element! {
    /// `<s>`: SSML `<s>`: a sentence.
    pub struct SsmlS = "s";
    attributes {
    }
    children {
        break_ = "break" -> SsmlBreak;
        emphasis = "emphasis" -> SsmlEmphasis(words);
        lang = "lang" -> SsmlLang(words);
        phoneme = "phoneme" -> SsmlPhoneme(words);
        prosody = "prosody" -> SsmlProsody(words);
        say_as = "sayAs" -> SsmlSayAs(words);
        sub = "sub" -> SsmlSub(words);
        w = "w" -> SsmlW(words);
    }
}

element! {
    /// `<say-as>`: SSML `<say-as>`: how to read words (a date, digits, spelled out...).
    pub struct SsmlSayAs = "say-as";
    attributes {
        /// `format`: specify the format of the date when interpret-as is set to date.
        format = "format": SsmlSayAsFormat;
        /// `interpret-as`: specify the type of words are spoken.
        interpret_as = "interpret-as": SsmlSayAsInterpretAs;
    }
    children {
    }
}

element! {
    /// `<sub>`: SSML `<sub>`: words read as an alias.
    pub struct SsmlSub = "sub";
    attributes {
        /// `alias`: substitute a different word (or pronunciation) for selected text such as an acronym or abbreviation.
        alias = "alias": text;
    }
    children {
    }
}

element! {
    /// `<w>`: SSML `<w>`: a word with a role that sets its pronunciation.
    pub struct SsmlW = "w";
    attributes {
        /// `role`: customize the pronunciation of words by specifying the word’s part of speech or alternate meaning.
        role = "role": text;
    }
    children {
        break_ = "break" -> SsmlBreak;
        emphasis = "emphasis" -> SsmlEmphasis(words);
        phoneme = "phoneme" -> SsmlPhoneme(words);
        prosody = "prosody" -> SsmlProsody(words);
        say_as = "sayAs" -> SsmlSayAs(words);
        sub = "sub" -> SsmlSub(words);
    }
}

element! {
    /// `<Start>`: starts something in the background while the markup goes on: a stream, a recording, a SIPREC fork or a transcription.
    pub struct Start = "Start";
    attributes {
        /// `action`: action URL.
        action = "action": text;
        /// `method`: HTTP method for `action`.
        method = "method": Method;
    }
    children {
        recording = "recording" -> Recording;
        siprec = "siprec" -> Siprec;
        stream = "stream" -> Stream;
        transcription = "transcription" -> Transcription;
    }
}

element! {
    /// `<Stop>`: stops what a `<Start>` started, by name.
    pub struct Stop = "Stop";
    attributes {
    }
    children {
        siprec = "siprec" -> Siprec;
        stream = "stream" -> Stream;
        transcription = "transcription" -> Transcription;
    }
}

element! {
    /// `<Stream>`: a media stream to a websocket.
    pub struct Stream = "Stream";
    attributes {
        /// `audioFormat`: required Audio Format.
        audio_format = "audioFormat": text;
        /// `connectorName`: unique name for Stream Connector.
        connector_name = "connectorName": text;
        /// `name`: friendly name given to the Stream.
        name = "name": text;
        /// `sampleRate`: sample Rate for HD Codec.
        sample_rate = "sampleRate": text;
        /// `statusCallback`: status callback URL.
        status_callback = "statusCallback": text;
        /// `statusCallbackMethod`: HTTP method for `statusCallback`.
        status_callback_method = "statusCallbackMethod": Method;
        /// `track`: track to be streamed to remote service.
        track = "track": StreamTrack;
        /// `url`: URL of the remote service where the Stream is routed.
        url = "url": text;
    }
    children {
        parameter = "parameter" -> Parameter;
    }
}

element! {
    /// `<Task>`: the task created for an enqueued call: its JSON attributes.
    pub struct Task = "Task";
    attributes {
        /// `priority`: task priority.
        priority = "priority": u32;
        /// `timeout`: timeout associated with task.
        timeout = "timeout": u32;
    }
    children {
    }
}

element! {
    /// `<Transcription>`: a real-time transcription.
    pub struct Transcription = "Transcription";
    attributes {
        /// `enableAutomaticPunctuation`: enable Automatic Punctuation.
        enable_automatic_punctuation = "enableAutomaticPunctuation": bool;
        /// `hints`: hints to be provided to the transcription engine.
        hints = "hints": text;
        /// `inboundTrackLabel`: friendly name given to the Inbound Track.
        inbound_track_label = "inboundTrackLabel": text;
        /// `intelligenceService`: the SID or the unique name of the Intelligence Service to be used.
        intelligence_service = "intelligenceService": text;
        /// `languageCode`: language Code used by the transcription engine.
        language_code = "languageCode": text;
        /// `name`: friendly name given to the Transcription.
        name = "name": text;
        /// `outboundTrackLabel`: friendly name given to the Outbound Track Label.
        outbound_track_label = "outboundTrackLabel": text;
        /// `partialResults`: whether partial results are sent.
        partial_results = "partialResults": bool;
        /// `profanityFilter`: enable Profanity Filter.
        profanity_filter = "profanityFilter": bool;
        /// `speechModel`: speech Model used by the transcription engine.
        speech_model = "speechModel": text;
        /// `statusCallbackMethod`: HTTP method for `statusCallback`.
        status_callback_method = "statusCallbackMethod": Method;
        /// `statusCallbackUrl`: status callback URL.
        status_callback_url = "statusCallbackUrl": text;
        /// `track`: track to be analysed by the provider.
        track = "track": StreamTrack;
        /// `transcriptionEngine`: transcription Engine to be used.
        transcription_engine = "transcriptionEngine": text;
    }
    children {
        config = "config" -> Config;
        parameter = "parameter" -> Parameter;
    }
}

element! {
    /// `<VirtualAgent>`: a virtual agent (Dialogflow CX) the call talks to.
    pub struct VirtualAgent = "VirtualAgent";
    attributes {
        /// `connectorName`: defines the conversation profile Dialogflow needs to use.
        connector_name = "connectorName": text;
        /// `language`: language to be used by Dialogflow to transcribe speech.
        language = "language": text;
        /// `sentimentAnalysis`: whether sentiment analysis needs to be enabled or not.
        sentiment_analysis = "sentimentAnalysis": bool;
        /// `statusCallback`: URL the platform posts status callbacks to.
        status_callback = "statusCallback": text;
        /// `statusCallbackMethod`: HTTP method to use when requesting the status callback URL.
        status_callback_method = "statusCallbackMethod": Method;
    }
    children {
        config = "config" -> Config;
        parameter = "parameter" -> Parameter;
    }
}

element! {
    /// `<WhatsApp>`: a WhatsApp user to call.
    pub struct WhatsApp = "WhatsApp";
    attributes {
        /// `method`: HTTP method for `url`.
        method = "method": Method;
        /// `statusCallback`: status callback URL.
        status_callback = "statusCallback": text;
        /// `statusCallbackEvent`: events to trigger status callback.
        status_callback_event = "statusCallbackEvent": [CallEvent];
        /// `statusCallbackMethod`: HTTP method for `statusCallback`.
        status_callback_method = "statusCallbackMethod": Method;
        /// `url`: URL of the markup to run for the called party before connecting.
        url = "url": text;
    }
    children {
    }
}

#[cfg(test)]
use super::differential::{hit, Build};
