#pragma once
// The topology being edited, as Tiled's MapDocument holds a map: the topology and its issues (what
// `hips validate` says of it), the undo stack of its edits, the file it came from, and the clipboard
// of copied elements. Every change, done, undone or redone, comes out as one typed event naming what
// changed, so that views update the items concerned instead of rebuilding everything. No widgets.
#include "TopologyEdits.h"
#include "TopologyIssue.h"

#include <QObject>
#include <QSet>
#include <QUndoStack>
#include <functional>
#include <optional>

namespace hips {

// What an edit changed: the parties whose roles or settings differ (added, removed or changed),
// whether the hosts, the training settings or only the layout (party positions) did.
struct TopologyChange {
    QSet<QString> parties;
    bool hosts = false, training = false, layout = false, name = false;
    bool everything = false;  // a new document (opened, new, undo to another file's state)
    // Undo and redo: what to select again (what was selected before the edit, or before the undo).
    std::optional<QList<ElementRef>> selection;

    static TopologyChange between(const Topology& before, const Topology& after);
    bool onlyLayout() const { return layout && parties.isEmpty() && !hosts && !training && !name && !everything; }
};

}  // namespace hips

Q_DECLARE_METATYPE(hips::TopologyChange)

namespace hips {

class TopologyDocument : public QObject {
    Q_OBJECT
public:
    explicit TopologyDocument(QObject* parent = nullptr);

    const Topology& topology() const { return m_topology; }
    const TopologyIssues& issues() const { return m_issues; }
    bool isValid() const { return m_issues.isEmpty(); }
    QByteArray json() const;

    // A new document (the undo history starts afresh); `path` is the file it is saved as, if any.
    void reset(const Topology& topology, const QString& path = {});
    bool open(const QString& path, QString* error);
    bool save(const QString& path, QString* error);  // becomes the document's path, and clean
    const QString& path() const { return m_path; }

    // Applies an edit as one undo step; with a merge key, consecutive edits with the same key merge.
    void apply(const QString& text, const Topology& after, const QString& mergeKey = {});
    QUndoStack* undoStack() { return &m_undo; }
    // The elements selected where the document is shown: each edit keeps them, so that undo
    // selects again what was selected before the edit, and redo what was selected before the undo.
    void setSelectionSource(std::function<QList<ElementRef>()> source) { m_selection = std::move(source); }
    QList<ElementRef> selection() const { return m_selection ? m_selection() : QList<ElementRef>(); }

    // The clipboard: elements of this topology as they are now; pasteInto() copies them into `t`
    // (into `party` for worker groups) and returns the copies, each with the element it copies.
    int copy(const QList<ElementRef>& elements);
    QList<std::pair<ElementRef, ElementRef>> pasteInto(Topology& t, const QString& party) const;
    bool hasClipboard() const { return !m_clipboard.isEmpty(); }

Q_SIGNALS:
    void changed(const TopologyChange& change);
    void validityChanged(bool valid);

private:
    friend class TopologyEditCommand;
    void show(const Topology& topology, TopologyChange change);  // what edits, undo and redo call

    Topology m_topology;
    TopologyIssues m_issues;
    QUndoStack m_undo;
    QString m_path;
    std::function<QList<ElementRef>()> m_selection;
    Topology m_clipboardSource;
    QList<ElementRef> m_clipboard;
};

}  // namespace hips
