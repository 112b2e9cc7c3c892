#pragma once
// The topology designer: palette, canvas, property panel and the validation list around one
// TopologyDocument (the topology, its issues, undo, file and clipboard). Edits are snapshots of the
// whole topology (a few kilobytes), so undo restores exactly what was there; a drag is one step,
// and typing into one field merges into one step. Each change reaches the canvas as an event
// naming what changed, and the canvas redraws only the parties concerned.
#include "TopologyDocument.h"

#include <QWidget>
#include <optional>

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

    TopologyDocument* document() { return &m_document; }
    bool openFile(const QString& path, QString* error);  // the file becomes the document's path
    bool saveFile(const QString& path, QString* error);
    // A new document (saved as `path`, if any): clears the undo history.
    void setTopology(const Topology& topology, const QString& path = {});
    const Topology& topology() const { return m_document.topology(); }
    const TopologyIssues& issues() const { return m_document.issues(); }
    bool isValid() const { return m_document.isValid(); }
    QByteArray json() const { return m_document.json(); }

    // Applies an edit as one undo step; with a merge key, consecutive edits with the same key merge.
    void apply(const QString& text, const Topology& after, const QString& mergeKey = {}) { m_document.apply(text, after, mergeKey); }

    void deleteSelection();
    void copySelection();
    void paste();
    void selectAll();
    // Commits what a property field shows but has not committed yet (before a save or a start).
    void commitFieldEdit();
    // The window's edit and view actions (copy, paste, delete, …), offered on the canvas's context
    // menu after the element's own entries, with their shortcuts.
    void setCanvasActions(QList<QAction*> actions) { m_canvasActions = std::move(actions); }
    QMenu* contextMenu(QPointF scenePos);  // what a right click at scenePos shows (the caller owns it)

    QUndoStack* undoStack() { return m_document.undoStack(); }
    DesignerScene* scene() const { return m_scene; }
    DesignerView* view() const { return m_view; }
    PropertyPanel* properties() const { return m_properties; }
    QListWidget* issueList() const { return m_issueList; }

Q_SIGNALS:
    void topologyChanged();
    void validityChanged(bool valid);
    void message(const QString& text);

private:
    void display(const TopologyChange& change);  // the document changed
    QString describe(const ElementRef& e) const;
    void selectAdded(const QList<ElementRef>& before);

    TopologyDocument m_document;
    DesignerScene* m_scene;
    DesignerView* m_view;
    Palette* m_palette;
    PropertyPanel* m_properties;
    QListWidget* m_issueList;
    QList<QAction*> m_canvasActions;
    // While the scene redraws, its passing selections (items removed, then chosen again) do not
    // reach the property panel: rebuilding the form under the user took the focus away from the
    // field Tab had just moved to, and what they typed next went nowhere.
    bool m_redrawing = false;
    std::optional<ElementRef> m_selectAfterEdit;  // the panel's element, renamed or not, after its edit
};

}  // namespace hips
