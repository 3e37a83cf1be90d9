package org.jtarget.fabric.iscsi.login;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The operational keys of one login (RFC 7143 6.2, 13): answers the initiator's offers with the
 * result function of each key in {@link OperationalKeys}, offers the few keys whose RFC default
 * the target cannot accept, and keeps the results. Keys nobody offers keep their RFC 7143
 * default (not the target's preference): that is what both sides assume.
 */
final class OperationalNegotiation {

    private final LoginSettings settings;
    private final List<KeyRule> rules;
    private final Map<String, String> values = new HashMap<>();
    /** Keys the initiator offered or declared (to detect offers of keys the target offered). */
    private final Set<String> initiatorKeys = new HashSet<>();
    /** Keys the target offered and is waiting for the initiator to answer. */
    private final Set<String> pendingOffers = new HashSet<>();
    private final Set<String> targetOffered = new HashSet<>();

    /** @param rdma true if the transport moves data by RDMA: iSER's keys are negotiated too */
    OperationalNegotiation(LoginSettings settings, boolean rdma) {
        this.settings = settings;
        this.rules = OperationalKeys.all(rdma);
        for (KeyRule rule : rules) {
            if (rule.defaultValue() != null) {
                values.put(rule.name(), rule.defaultValue());
            }
        }
    }

    /** The current result for a key (its default if not negotiated). */
    String value(String key) {
        return values.get(key);
    }

    boolean yes(String key) {
        return OperationalKeys.YES.equals(values.get(key));
    }

    int number(String key) {
        return (int) BinaryValue.number(values.get(key));
    }

    /** True if the target offered this key and still waits for the initiator's answer. */
    boolean pendingOffer(String key) {
        return pendingOffers.contains(key);
    }

    boolean waitingForAnswers() {
        return !pendingOffers.isEmpty();
    }

    /**
     * Handles one key from the initiator.
     *
     * @return the answer to send, or null for none (declarations, answers to our offers)
     */
    String accept(KeyRule rule, String value, boolean discovery, boolean leading) {
        if (targetOffered.contains(rule.name())) {
            pendingOffers.remove(rule.name());
            String result = result(rule, value);
            if (!isSpecial(result)) {
                values.put(rule.name(), result);
            }
            return null;
        }
        initiatorKeys.add(rule.name());
        if (value.length() > TextParameters.MAX_STANDARD_VALUE_LENGTH) {
            return OperationalKeys.REJECT;
        }
        if ((discovery && rule.irrelevantInDiscovery()) || (!leading && rule.leadingOnly())) {
            return OperationalKeys.IRRELEVANT;
        }
        String result = result(rule, value);
        if (!isSpecial(result)) {
            values.put(rule.name(), result);
        }
        return rule.kind() == KeyKind.DECLARATIVE && !isSpecial(result) ? null : result;
    }

    /**
     * The initiator's offer of a key that the other keys make irrelevant: answered Irrelevant, and
     * counted as offered so that the target does not offer it too.
     */
    String irrelevant(KeyRule rule) {
        initiatorKeys.add(rule.name());
        return OperationalKeys.IRRELEVANT;
    }

    /** The result of an offer under the key's function, or Reject for a bad value. */
    private String result(KeyRule rule, String value) {
        String target = rule.target().apply(settings);
        switch (rule.kind()) {
            case LIST:
                return firstSupported(value, target);
            case MIN, MAX: {
                long v = checkedNumber(rule, value);
                if (v < 0) {
                    return OperationalKeys.REJECT;
                }
                long t = Long.parseLong(target);
                return Long.toString(rule.kind() == KeyKind.MIN ? Math.min(v, t) : Math.max(v, t));
            }
            case AND, OR: {
                if (!OperationalKeys.YES.equals(value) && !OperationalKeys.NO.equals(value)) {
                    return OperationalKeys.REJECT;
                }
                boolean v = OperationalKeys.YES.equals(value);
                boolean t = OperationalKeys.YES.equals(target);
                return (rule.kind() == KeyKind.AND ? v && t : v || t) ? OperationalKeys.YES : OperationalKeys.NO;
            }
            case DECLARATIVE:
                return checkedNumber(rule, value) < 0 ? OperationalKeys.REJECT : value;
            default:
                throw new IllegalArgumentException("not an operational key: " + rule.name());
        }
    }

    private static long checkedNumber(KeyRule rule, String value) {
        long v = BinaryValue.number(value);
        return v < rule.min() || v > rule.max() ? -1 : v;
    }

    private static String firstSupported(String offered, String supported) {
        List<String> ours = List.of(supported.split(","));
        for (String v : offered.split(",", -1)) {
            if (ours.contains(v)) {
                return v;
            }
        }
        return OperationalKeys.REJECT;
    }

    static boolean isSpecial(String v) {
        return OperationalKeys.REJECT.equals(v) || OperationalKeys.IRRELEVANT.equals(v)
                || OperationalKeys.NOT_UNDERSTOOD.equals(v);
    }

    /**
     * The keys the target must offer itself because the RFC default is a result it cannot accept
     * (e.g. MaxBurstLength above its limit, ImmediateData when it wants No), and over RDMA the
     * RDMAExtensions key, which turns iSER on (RFC 7145 6.3); skipping keys the
     * initiator already offered. Marks them pending: the target may not leave the stage until
     * the initiator answers (RFC 7143 6.2).
     */
    List<Map.Entry<String, String>> targetOffers(boolean discovery, boolean leading) {
        List<Map.Entry<String, String>> offers = new ArrayList<>();
        for (KeyRule rule : rules) {
            boolean negotiable = rule.kind() == KeyKind.MIN || rule.kind() == KeyKind.MAX
                    || rule.kind() == KeyKind.AND || rule.kind() == KeyKind.OR;
            if (!negotiable || initiatorKeys.contains(rule.name()) || targetOffered.contains(rule.name())
                    || (discovery && rule.irrelevantInDiscovery()) || (!leading && rule.leadingOnly())) {
                continue;
            }
            String target = rule.target().apply(settings);
            // RFC 7145 6.3: a transport that speaks iSER offers RDMAExtensions=Yes itself
            boolean transportKey = rule.rdmaOnly() && rule.leadingOnly() && rule.kind() == KeyKind.AND;
            if (transportKey || !result(rule, rule.defaultValue()).equals(rule.defaultValue())) {
                offers.add(Map.entry(rule.name(), target));
                targetOffered.add(rule.name());
                pendingOffers.add(rule.name());
                values.put(rule.name(), result(rule, rule.defaultValue()));
            }
        }
        return offers;
    }
}
