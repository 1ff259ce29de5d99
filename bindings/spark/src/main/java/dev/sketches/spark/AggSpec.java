package dev.sketches.spark;

import java.io.Serializable;

/**
 * What one aggregate call builds: the SQL function's name (for error messages), the family, how
 * to make an empty sketch from the call's literal parameters (null for the union aggregates,
 * which start from their first image) and the longest key the family takes (0: no limit).
 * Immutable; travels to the executors inside the query plan.
 */
final class AggSpec implements Serializable {
    private static final long serialVersionUID = 1L;

    /** Makes an empty sketch with the call's parameters; serializable so the plan carries it. */
    @FunctionalInterface
    interface Factory extends Serializable {
        /** A new empty sketch. */
        Object create();
    }

    final String function;
    final Family family;
    final Factory factory;
    final int maxKeyLength;

    AggSpec(String function, Family family, Factory factory, int maxKeyLength) {
        this.function = function;
        this.family = family;
        this.factory = factory;
        this.maxKeyLength = maxKeyLength;
    }
}
