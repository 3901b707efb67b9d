package io.vitesscdc.source.reader;

import io.vitesscdc.source.split.VitessSplit;
import io.vitesscdc.source.split.VitessSplitState;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.base.source.reader.SingleThreadMultiplexSourceReaderBase;
import org.apache.flink.connector.base.source.reader.splitreader.SplitReader;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Map;
import java.util.function.Supplier;

/**
 * The source reader: one fetcher thread running one {@link VitessSplitReader} (one native
 * stream) for all splits of this subtask; the task thread emits through
 * {@link VitessRecordEmitter}, which keeps the checkpointed {@link VitessSplitState}.
 */
@Internal
public final class VitessSourceReader<T>
        extends SingleThreadMultiplexSourceReaderBase<SplitElement<T>, T, VitessSplit, VitessSplitState> {

    private static final Logger LOG = LoggerFactory.getLogger(VitessSourceReader.class);

    public VitessSourceReader(
            Supplier<SplitReader<SplitElement<T>, VitessSplit>> splitReaderSupplier,
            VitessRecordEmitter<T> emitter,
            Configuration config,
            SourceReaderContext context) {
        super(splitReaderSupplier, emitter, config, context);
    }

    @Override
    protected void onSplitFinished(Map<String, VitessSplitState> finishedSplitIds) {
        LOG.info("Vitess splits finished (copy completed, bounded mode): {}", finishedSplitIds.keySet());
    }

    @Override
    protected VitessSplitState initializedState(VitessSplit split) {
        return new VitessSplitState(split);
    }

    @Override
    protected VitessSplit toSplitType(String splitId, VitessSplitState state) {
        return state.toSplit();
    }
}
