package dev.sketches.spark;

import org.apache.spark.sql.Encoder;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.expressions.Aggregator;

/**
 * The typed Spark aggregate behind every {@code sketch_*_agg} function: with {@code union} false
 * it adds the input keys to a sketch made from the call's parameters; with {@code union} true its
 * input is a BINARY column of images of one family, merged into one. The output is the exported
 * image (BINARY). Null inputs are skipped. Immutable and serializable (Spark ships it in the plan);
 * each buffer is used by one task thread.
 */
final class SketchAggregator extends Aggregator<Object, SketchBuffer, byte[]> {
    private static final long serialVersionUID = 1L;

    private final AggSpec spec;
    private final boolean union;

    SketchAggregator(AggSpec spec, boolean union) {
        this.spec = spec;
        this.union = union;
    }

    /** The function and family, for query plans. */
    @Override
    public String toString() {
        return spec.function + (union ? "[merge of " : "[") + spec.family.title + "]";
    }

    @Override
    public SketchBuffer zero() {
        return new SketchBuffer(spec);
    }

    @Override
    public SketchBuffer reduce(SketchBuffer buffer, Object input) {
        buffer.with(spec);
        if (union) {
            buffer.addImage((byte[]) input);
        } else {
            buffer.addKey(input);
        }
        return buffer;
    }

    @Override
    public SketchBuffer merge(SketchBuffer a, SketchBuffer b) {
        return a.with(spec).mergeFrom(b.with(spec));
    }

    @Override
    public byte[] finish(SketchBuffer buffer) {
        return buffer.with(spec).result();
    }

    @Override
    public Encoder<SketchBuffer> bufferEncoder() {
        return Encoders.javaSerialization(SketchBuffer.class);
    }

    @Override
    public Encoder<byte[]> outputEncoder() {
        return Encoders.BINARY();
    }
}
