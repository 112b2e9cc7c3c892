#include "TopologyDocument.h"

#include "PrivateFiles.h"
#include "TopologyReader.h"
#include "TopologyWriter.h"

#include <QJsonArray>

namespace hips {

namespace {

// Each party as the file has it, by id.
QHash<QString, QJsonObject> partiesOf(const QJsonObject& topology) {
    QHash<QString, QJsonObject> out;
    for (const QJsonValue& p : topology.value("parties").toArray()) out.insert(p.toObject().value("id").toString(), p.toObject());
    return out;
}

}  // namespace

TopologyChange TopologyChange::between(const Topology& before, const Topology& after) {
    const QJsonObject a = TopologyWriter::toJsonObject(before), b = TopologyWriter::toJsonObject(after);
    TopologyChange change;
    change.hosts = a.value("hosts") != b.value("hosts");
    change.training = a.value("training") != b.value("training");
    change.layout = a.value("layout") != b.value("layout");
    change.name = a.value("name") != b.value("name");
    const QHash<QString, QJsonObject> pa = partiesOf(a), pb = partiesOf(b);
    for (auto it = pa.begin(); it != pa.end(); ++it)
        if (pb.value(it.key()) != *it) change.parties.insert(it.key());
    for (auto it = pb.begin(); it != pb.end(); ++it)
        if (!pa.contains(it.key())) change.parties.insert(it.key());
    return change;
}

// One edit: the topology before and after. Snapshots make undo exact by construction.
class TopologyEditCommand : public QUndoCommand {
public:
    TopologyEditCommand(TopologyDocument* document, const QString& text, Topology before, Topology after, QString mergeKey)
        : QUndoCommand(text),
          m_document(document),
          m_before(std::move(before)),
          m_after(std::move(after)),
          m_mergeKey(std::move(mergeKey)),
          m_selectedBefore(document->selection()) {}
    void redo() override {
        TopologyChange change = TopologyChange::between(m_document->topology(), m_after);
        if (m_undone) change.selection = m_selectedAfter;  // the first redo is the edit itself: its view selects
        m_document->show(m_after, change);
    }
    void undo() override {
        m_selectedAfter = m_document->selection();
        m_undone = true;
        TopologyChange change = TopologyChange::between(m_document->topology(), m_before);
        change.selection = m_selectedBefore;
        m_document->show(m_before, change);
    }
    int id() const override { return m_mergeKey.isEmpty() ? -1 : 1; }
    bool mergeWith(const QUndoCommand* other) override {
        auto* o = static_cast<const TopologyEditCommand*>(other);
        if (o->m_mergeKey != m_mergeKey) return false;
        m_after = o->m_after;
        return true;
    }

private:
    TopologyDocument* m_document;
    Topology m_before, m_after;
    QString m_mergeKey;
    QList<ElementRef> m_selectedBefore, m_selectedAfter;
    bool m_undone = false;
};

TopologyDocument::TopologyDocument(QObject* parent) : QObject(parent) {
    qRegisterMetaType<TopologyChange>();
}

QByteArray TopologyDocument::json() const {
    return TopologyWriter::toJson(m_topology);
}

void TopologyDocument::reset(const Topology& topology, const QString& path) {
    m_undo.clear();
    m_path = path;
    TopologyChange everything;
    everything.everything = true;
    show(topology, everything);
}

bool TopologyDocument::open(const QString& path, QString* error) {
    const TopologyLoad load = TopologyReader::readFile(path);
    if (!load.draft) {  // not even well-formed: nothing to draw
        *error = load.errorText();
        return false;
    }
    reset(*load.draft, path);
    return true;
}

bool TopologyDocument::save(const QString& path, QString* error) {
    if (const QString e = writeUserFile(path, json()); !e.isEmpty()) {
        *error = e;
        return false;
    }
    m_path = path;
    m_undo.setClean();
    return true;
}

void TopologyDocument::apply(const QString& text, const Topology& after, const QString& mergeKey) {
    m_undo.push(new TopologyEditCommand(this, text, m_topology, after, mergeKey));
}

void TopologyDocument::show(const Topology& topology, TopologyChange change) {
    const bool wasValid = m_issues.isEmpty();
    m_topology = topology;
    edits::assignUids(m_topology);  // new groups and servers get theirs; the others keep them
    // Exactly what `hips validate` and `hips run` check: the topology as its file would read.
    m_issues = TopologyReader::readJson(TopologyWriter::toJson(topology)).issues;
    Q_EMIT changed(change);
    if (wasValid != m_issues.isEmpty()) Q_EMIT validityChanged(m_issues.isEmpty());
}

int TopologyDocument::copy(const QList<ElementRef>& elements) {
    m_clipboard = elements;
    m_clipboardSource = m_topology;
    return int(m_clipboard.size());
}

QList<std::pair<ElementRef, ElementRef>> TopologyDocument::pasteInto(Topology& t, const QString& party) const {
    QList<std::pair<ElementRef, ElementRef>> out;
    for (const ElementRef& original : m_clipboard)  // one at a time: each copy is made after the last
        for (const ElementRef& copy : edits::paste(t, m_clipboardSource, {original}, party)) out.append({copy, original});
    return out;
}

}  // namespace hips
