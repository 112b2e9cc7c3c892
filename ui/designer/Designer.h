#pragma once
// The topology designer: palette, canvas, property panel and the validation list around one
// topology, with undo/redo of every edit. Edits are snapshots of the whole topology (a few
// kilobytes), so undo restores exactly what was there; a drag is one step, and typing into one
// field merges into one step.
#include "TopologyEdits.h"
#include "TopologyIssue.h"

#include <QUndoStack>
#include <QWidget>

class QAction;
class QListWidget;
class QMenu;

namespace hips {

class DesignerScene;
class DesignerView;
class Palette;
class PropertyPanel;

class Designer : public QWidget {
    Q_OBJECT
public:
    explicit Designer(QWidget* parent = nullptr);
    ~Designer() override;

    bool openFile(const QString& path, QString* error);
    bool saveFile(const QString& path, QString* error);
    void setTopology(const Topology& topology);  // a new document: clears the undo history
    const Topology& topology() const { return m_topology; }
    const TopologyIssues& issues() const { return m_issues; }
    bool isValid() const { return m_issues.isEmpty(); }
    QByteArray json() const;

    // Applies an edit as one undo step; with a merge key, consecutive edits with the same key merge.
    void apply(const QString& text, const Topology& after, const QString& mergeKey = {});

    void deleteSelection();
    void copySelection();
    void paste();
    void selectAll();
    // The window's edit and view actions (copy, paste, delete, …), offered on the canvas's context
    // menu after the element's own entries, with their shortcuts.
    void setCanvasActions(QList<QAction*> actions) { m_canvasActions = std::move(actions); }
    QMenu* contextMenu(QPointF scenePos);  // what a right click at scenePos shows (the caller owns it)

    QUndoStack* undoStack() { return &m_undo; }
    DesignerScene* scene() const { return m_scene; }
    DesignerView* view() const { return m_view; }
    PropertyPanel* properties() const { return m_properties; }
    QListWidget* issueList() const { return m_issueList; }

Q_SIGNALS:
    void topologyChanged();
    void validityChanged(bool valid);
    void message(const QString& text);

private:
    friend class TopologyEditCommand;
    void display(const Topology& topology);  // what undo/redo call

    Topology m_topology;
    TopologyIssues m_issues;
    QUndoStack m_undo;
    DesignerScene* m_scene;
    DesignerView* m_view;
    Palette* m_palette;
    PropertyPanel* m_properties;
    QListWidget* m_issueList;
    Topology m_clipboardSource;
    QList<ElementRef> m_clipboard;
    QList<QAction*> m_canvasActions;
};

}  // namespace hips
