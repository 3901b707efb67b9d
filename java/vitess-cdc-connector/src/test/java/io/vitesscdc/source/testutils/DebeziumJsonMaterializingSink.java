package io.vitesscdc.source.testutils;

import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;

import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.DeserializationFeature;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.time.LocalDateTime;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Applies Debezium-style JSON change events (from {@code JsonDebeziumDeserializationSchema}) to a
 * {@link MaterializedTables} keyed by the given key columns; records the identity of every
 * streamed event so a test can prove none was delivered twice.
 */
public final class DebeziumJsonMaterializingSink implements Sink<String> {

    private static final long serialVersionUID = 1L;

    private final String tablesId;
    private final String[] keyColumns;

    public DebeziumJsonMaterializingSink(String tablesId, String... keyColumns) {
        this.tablesId = tablesId;
        this.keyColumns = keyColumns;
    }

    @Override
    public SinkWriter<String> createWriter(WriterInitContext context) {
        return new Writer(MaterializedTables.get(tablesId), keyColumns);
    }

    private static final class Writer implements SinkWriter<String> {
        private final MaterializedTables tables;
        private final String[] keyColumns;
        private final ObjectMapper mapper =
                new ObjectMapper().enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);

        Writer(MaterializedTables tables, String[] keyColumns) {
            this.tables = tables;
            this.keyColumns = keyColumns;
        }

        @Override
        public void write(String element, Context context) throws IOException {
            JsonNode event = mapper.readTree(element);
            String op = event.get("op").asText();
            JsonNode image = op.equals("d") ? event.get("before") : event.get("after");
            Map<String, String> row = new LinkedHashMap<>();
            for (Iterator<Map.Entry<String, JsonNode>> it = image.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> f = it.next();
                row.put(f.getKey(), normalize(f.getValue()));
            }
            StringBuilder key = new StringBuilder();
            for (String k : keyColumns) {
                key.append(key.length() == 0 ? "" : "|").append(row.get(k));
            }
            boolean snapshot = event.get("source").get("snapshot").asBoolean();
            String flinkOp = op.equals("d") ? "-D" : op.equals("u") ? "+U" : "+I";
            String eventId = snapshot ? null : event.get("source").get("position").asText() + "|" + op + "|" + row;
            tables.apply(flinkOp, key.toString(), row, eventId);
        }

        private static String normalize(JsonNode v) {
            if (v == null || v.isNull()) {
                return null;
            }
            if (v.isNumber()) {
                return Values.normalize(v.decimalValue());
            }
            String text = v.asText();
            if (text.length() >= 16 && text.charAt(10) == 'T') {
                try {
                    return Values.normalize(LocalDateTime.parse(text));
                } catch (RuntimeException notADateTime) {
                    return text;
                }
            }
            return text;
        }

        @Override
        public void flush(boolean endOfInput) {}

        @Override
        public void close() {}
    }
}
