package org.jtarget.fabric.iscsi.login;

/**
 * How a login key is negotiated: its result function (RFC 7143 6.2 and 13) or how the target
 * treats it when an initiator sends it.
 */
public enum KeyKind {
    /** List of values in the offerer's order of preference: the first one the responder supports (RFC 7143 6.2.1). */
    LIST,
    /** Numerical, result is the smaller of offer and answer (RFC 7143 6.2.2). */
    MIN,
    /** Numerical, result is the larger of offer and answer. */
    MAX,
    /** Boolean, result is offer AND answer. */
    AND,
    /** Boolean, result is offer OR answer. */
    OR,
    /** Declarative: each side states its own value and nobody answers (RFC 7143 6.2). */
    DECLARATIVE,
    /** Identity and session keys handled by the login state machine (InitiatorName, TargetName, SessionType...). */
    SESSION,
    /** Security keys (AuthMethod, CHAP_*), negotiated in the security stage only (RFC 7143 6.3). */
    SECURITY,
    /** Keys only a target sends (TargetAlias, TargetAddress, TargetPortalGroupTag): Reject if an initiator sends them. */
    TARGET_ONLY,
    /** Full Feature Phase only (SendTargets, RFC 7143 13.3): Irrelevant during login. */
    FULL_FEATURE_ONLY,
    /** Obsolete marker switches (RFC 7143 13, "Obsoleted Keys"): answered No (RFC 7143 allows No as well as Reject). */
    OBSOLETE_NO,
    /** Obsolete marker intervals (OFMarkInt, IFMarkInt): MUST be answered Reject. */
    OBSOLETE_REJECT
}
